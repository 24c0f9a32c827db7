#pragma once
// Whether a syslog file could have been written by someone other than the logging daemon. Where
// gpudoctor cannot read /dev/kmsg it reads rsyslog's files, and a "kernel:" line there is only as
// good as the file: a file (or a folder above it) that an unprivileged user can write lets that
// user add any line, an Xid 79 included. The daemon writes as root (Debian, RHEL: $FileOwner root)
// or as the syslog user (Ubuntu: $PrivDropToUser syslog, $FileOwner syslog, $FileGroup adm, and
// /var/log root:syslog 0775), so those owners and groups are the daemon's; anyone else is not.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

/// The accounts a logging daemon writes as, from /etc/passwd and /etc/group under the Host.
struct LogAccounts {
  std::optional<std::uint32_t> syslog_uid;  ///< the "syslog" user (Ubuntu), when /etc/passwd has one
  std::vector<std::uint32_t> log_gids;      ///< root (0) and, where they exist, "adm" and "syslog"
  std::string etc_group;                    ///< for naming other groups in a reason
  std::string etc_passwd;                   ///< for naming other owners in a reason
};

/// Parses the two files' text (either may be empty: then only root counts).
LogAccounts log_accounts(std::string_view etc_passwd, std::string_view etc_group);

/// Why `path` (with `st`, from stat) can be written by someone who is not the logging daemon
/// ("/var/log/syslog is world-writable (mode 0666)"), or nullopt when only the daemon can: owned
/// by root or the syslog user, not writable by others, writable by its group only where the
/// group is root's, adm or syslog.
std::optional<std::string> writable_by_others(std::string_view path, const FileStat& st, const LogAccounts& accounts);

/// The verdict for a syslog file through the Host: the file and each folder above it (a folder
/// others can write lets them replace the file). nullopt: only the daemon can write it; else why
/// not, or why that could not be told.
std::optional<std::string> syslog_file_untrusted(Host& host, std::string_view path);

}  // namespace gd
