#include "report/redact_accounts.hpp"

#include "util/text_split.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

namespace gd {
namespace {

constexpr std::uint64_t k_first_person_id = 1000;  // login.defs UID_MIN / GID_MIN
constexpr std::uint64_t k_last_person_id = 59999;  // login.defs UID_MAX / GID_MAX


std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t value = 0;
  auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

/// A person's id, or one that does not parse (kept safe: treated as a person's).
bool is_person_id(std::string_view id) {
  auto n = number(id);
  return !n || (*n >= k_first_person_id && *n <= k_last_person_id);
}

std::string_view kept_password(std::string_view password) {
  if (password.empty() || password == "x" || password == "*" || password == "!" || password == "!!") return password;
  return "x";  // a hash, or anything else: never kept
}

/// `text` line by line through `redact_line`, the line ends kept.
template <typename F>
std::string each_line(std::string_view text, F redact_line) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty()) out += redact_line(line);
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

/// The home folder with its last component replaced by <user> when that is the account's name.
std::string home_shape(std::string_view home, std::string_view name) {
  std::size_t slash = home.rfind('/');
  if (slash == std::string_view::npos || name.empty() || home.substr(slash + 1) != name) return std::string(home);
  return std::string(home.substr(0, slash + 1)) + "<user>";
}

}  // namespace

PeopleAccounts people_accounts(std::string_view passwd) {
  PeopleAccounts out;
  each_line(passwd, [&](std::string_view line) {
    std::vector<std::string_view> f = split_fields(line, ':');
    if (f.size() != 7 || f[0].empty() || !is_person_id(f[2])) return std::string();
    out.names.emplace_back(f[0]);
    std::string_view home = f[5];
    if (!home.starts_with("/home/") && !home.starts_with("/Users/") && home_shape(home, f[0]) != home) {
      out.other_homes.emplace_back(home);
    }
    return std::string();
  });
  return out;
}

std::string redact_passwd(std::string_view passwd) {
  return each_line(passwd, [](std::string_view line) {
    // name:password:uid:gid:gecos:home:shell
    std::vector<std::string_view> f = split_fields(line, ':');
    if (f.size() != 7) return std::string("<redacted>");
    bool person = is_person_id(f[2]);
    std::string out = person ? "<user>" : std::string(f[0]);
    out += ':';
    out += kept_password(f[1]);
    out += ':' + std::string(f[2]) + ':' + std::string(f[3]) + "::";
    out += person ? home_shape(f[5], f[0]) : std::string(f[5]);
    out += ':' + std::string(f[6]);
    return out;
  });
}

std::string redact_group(std::string_view group, const std::vector<std::string>& people) {
  return each_line(group, [&](std::string_view line) {
    // name:password:gid:members
    std::vector<std::string_view> f = split_fields(line, ':');
    if (f.size() != 4) return std::string("<redacted>");
    std::string out;
    if (std::find(people.begin(), people.end(), f[0]) != people.end()) {
      out = "<user>";  // a person's own group (user private groups)
    } else if (is_person_id(f[2])) {
      out = "<group>";  // a site's group, named after a team or a project
    } else {
      out = f[0];
    }
    out += ':';
    out += kept_password(f[1]);
    out += ':' + std::string(f[2]) + ':';
    return out;
  });
}

}  // namespace gd
