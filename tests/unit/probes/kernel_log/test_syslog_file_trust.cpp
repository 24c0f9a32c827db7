// Who can write a syslog file: the decision on one stat (owner, group, mode) and through the Host
// (the file and every folder above it), with Debian's (root:adm 0640 in root:root 0755) and
// Ubuntu's (syslog:adm 0640 in root:syslog 0775) layouts as the trusted cases.

#include "probes/kernel_log/syslog_file_trust.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include "sys/capture.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

const std::string k_passwd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "syslog:x:104:111::/home/syslog:/usr/sbin/nologin\n"
    "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n";
const std::string k_group = "root:x:0:\nadm:x:4:syslog,alice\nsyslog:x:111:\nusers:x:100:alice\n";

gd::FileStat st(std::uint32_t mode, std::uint32_t uid, std::uint32_t gid,
                gd::FileKind kind = gd::FileKind::regular) {
  gd::FileStat out;
  out.kind = kind;
  out.mode = mode;
  out.uid = uid;
  out.gid = gid;
  return out;
}

}  // namespace

TEST_CASE("syslog file trust: accounts from /etc/passwd and /etc/group", "[probes][syslog_file_trust]") {
  gd::LogAccounts accounts = gd::log_accounts(k_passwd, k_group);
  CHECK(accounts.syslog_uid == 104u);
  CHECK(accounts.log_gids == std::vector<std::uint32_t>{0, 4, 111});
  gd::LogAccounts none = gd::log_accounts("", "");
  CHECK_FALSE(none.syslog_uid.has_value());
  CHECK(none.log_gids == std::vector<std::uint32_t>{0});
  // A malformed id is no id.
  CHECK_FALSE(gd::log_accounts("syslog:x:10x4:1::/:/bin/false\n", "").syslog_uid.has_value());
}

TEST_CASE("syslog file trust: one file's owner, group and mode", "[probes][syslog_file_trust]") {
  gd::LogAccounts accounts = gd::log_accounts(k_passwd, k_group);
  const std::string f = "/var/log/syslog";
  // Trusted: Debian's root:adm 0640, Ubuntu's syslog:adm 0640, Ubuntu's /var/log root:syslog 0775.
  CHECK_FALSE(gd::writable_by_others(f, st(0640, 0, 4), accounts));
  CHECK_FALSE(gd::writable_by_others(f, st(0640, 104, 4), accounts));
  CHECK_FALSE(gd::writable_by_others("/var/log", st(0775, 0, 111, gd::FileKind::directory), accounts));
  CHECK_FALSE(gd::writable_by_others(f, st(0660, 0, 0), accounts));
  // Untrusted: world-writable, another owner, group-writable by a group of users.
  CHECK(gd::writable_by_others(f, st(0666, 0, 4), accounts) == "/var/log/syslog is world-writable (mode 0666)");
  CHECK(gd::writable_by_others("/var/log", st(01777, 0, 0, gd::FileKind::directory), accounts) ==
        "/var/log is world-writable (mode 1777)");
  CHECK(gd::writable_by_others(f, st(0640, 1000, 4), accounts) ==
        "/var/log/syslog is owned by uid 1000 (alice), not root or the syslog user");
  CHECK(gd::writable_by_others(f, st(0664, 0, 100), accounts) ==
        "/var/log/syslog is group-writable by gid 100 (users) (mode 0664)");
  // Without /etc/passwd the syslog user is not known: its file is another owner's.
  CHECK(gd::writable_by_others(f, st(0640, 104, 4), gd::log_accounts("", "")) ==
        "/var/log/syslog is owned by uid 104, not root or the syslog user");
  // Group-readable by anyone is fine: reading forges nothing.
  CHECK_FALSE(gd::writable_by_others(f, st(0644, 0, 100), accounts));
}

TEST_CASE("syslog file trust: the file and every folder above it, through the Host", "[probes][syslog_file_trust]") {
  auto verdict = [](gd::Capture c) {
    gd::ReplayHost host(std::move(c));
    return gd::syslog_file_untrusted(host, "/var/log/kern.log");
  };
  gd::Capture debian;
  debian.paths["/var/log/kern.log"].stat = st(0640, 0, 4);
  debian.paths["/var/log"].stat = st(0755, 0, 0, gd::FileKind::directory);
  debian.paths["/var"].stat = st(0755, 0, 0, gd::FileKind::directory);
  debian.paths["/"].stat = st(0755, 0, 0, gd::FileKind::directory);
  CHECK_FALSE(verdict(debian));
  {
    // A root-owned file is no better than its folder: whoever writes /var/log can replace it.
    gd::Capture c = debian;
    c.paths["/var/log"].stat = st(0775, 0, 100, gd::FileKind::directory);
    c.paths["/etc/group"].read = k_group;
    CHECK(verdict(c) == "/var/log is group-writable by gid 100 (users) (mode 0775)");
  }
  {
    gd::Capture c = debian;
    c.paths["/var"].stat = st(0755, 1000, 1000, gd::FileKind::directory);
    c.paths["/etc/passwd"].read = k_passwd;
    CHECK(verdict(c) == "/var is owned by uid 1000 (alice), not root or the syslog user");
  }
  {
    // Ubuntu: syslog:adm 0640 in root:syslog 0775, trusted once /etc/passwd and /etc/group name them.
    gd::Capture c = debian;
    c.paths["/var/log/kern.log"].stat = st(0640, 104, 4);
    c.paths["/var/log"].stat = st(0775, 0, 111, gd::FileKind::directory);
    c.paths["/etc/passwd"].read = k_passwd;
    c.paths["/etc/group"].read = k_group;
    CHECK_FALSE(verdict(c));
  }
  {
    gd::Capture c = debian;
    c.paths["/var"].stat = std::unexpected(gd::IoError{EACCES});
    CHECK(verdict(c) == "cannot tell who can write /var: stat EACCES");
  }
}

}  // namespace GD_UNITY_ID
