#include "probes/kernel_log/syslog_file_trust.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "probes/shared/account_files.hpp"
#include "util/errno_names.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_accounts_file = 1024 * 1024;
constexpr std::uint32_t k_group_write = 0020;
constexpr std::uint32_t k_other_write = 0002;

/// "uid 1000 (alice)", or "uid 1000" where the account file does not name it.
std::string named(std::string_view etc_file, std::uint32_t id, std::string_view kind) {
  auto name = account_name(etc_file, id);
  return name ? fmt::format("{} {} ({})", kind, id, *name) : fmt::format("{} {}", kind, id);
}

/// "/var/log/kern.log" → "/var/log", "/var", "/".
std::vector<std::string> folders_above(std::string_view path) {
  std::vector<std::string> out;
  std::string current(path);
  while (current.size() > 1) {
    std::size_t slash = current.find_last_of('/');
    current = slash == 0 || slash == std::string::npos ? "/" : current.substr(0, slash);
    out.push_back(current);
  }
  return out;
}

}  // namespace

LogAccounts log_accounts(std::string_view etc_passwd, std::string_view etc_group) {
  LogAccounts accounts;
  accounts.syslog_uid = account_id(etc_passwd, "syslog");
  accounts.log_gids.push_back(0);
  // Debian and Ubuntu give log files to group adm ($FileGroup adm in /etc/rsyslog.conf); Ubuntu
  // gives /var/log to group syslog.
  for (std::string_view group : {"adm", "syslog"}) {
    if (auto gid = account_id(etc_group, group)) accounts.log_gids.push_back(*gid);
  }
  accounts.etc_passwd = std::string(etc_passwd);
  accounts.etc_group = std::string(etc_group);
  return accounts;
}

std::optional<std::string> writable_by_others(std::string_view path, const FileStat& st, const LogAccounts& accounts) {
  if (st.mode & k_other_write) {
    return fmt::format("{} is world-writable (mode {})", path, octal_mode(st.mode));
  }
  if (st.uid != 0 && st.uid != accounts.syslog_uid) {
    return fmt::format("{} is owned by {}, not root or the syslog user", path, named(accounts.etc_passwd, st.uid, "uid"));
  }
  if ((st.mode & k_group_write) &&
      std::find(accounts.log_gids.begin(), accounts.log_gids.end(), st.gid) == accounts.log_gids.end()) {
    return fmt::format("{} is group-writable by {} (mode {})", path, named(accounts.etc_group, st.gid, "gid"),
                       octal_mode(st.mode));
  }
  return std::nullopt;
}

std::optional<std::string> syslog_file_untrusted(Host& host, std::string_view path) {
  std::vector<std::pair<std::string, FileStat>> checked;
  std::vector<std::string> chain = folders_above(path);
  chain.insert(chain.begin(), std::string(path));
  for (const std::string& entry : chain) {
    auto st = host.stat(entry);
    if (!st) {
      return fmt::format("cannot tell who can write {}: stat {}", entry, errno_name(st.error().code));
    }
    checked.emplace_back(entry, *st);
  }
  // Root alone needs no account files; read them only when an owner or group is another one, so
  // that the usual root-owned file adds nothing to a capture.
  LogAccounts accounts = log_accounts("", "");
  bool loaded = false;
  for (const auto& [entry, st] : checked) {
    std::optional<std::string> why = writable_by_others(entry, st, accounts);
    if (why && !loaded) {
      auto passwd = host.read_file("/etc/passwd", k_max_accounts_file);
      auto group = host.read_file("/etc/group", k_max_accounts_file);
      accounts = log_accounts(passwd ? *passwd : "", group ? *group : "");
      loaded = true;
      why = writable_by_others(entry, st, accounts);
    }
    if (why) return why;
  }
  return std::nullopt;
}

}  // namespace gd
