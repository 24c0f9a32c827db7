#pragma once
// The two framings the kernel log arrives in, reduced to plain message lines: /dev/kmsg records
// (Documentation/ABI/testing/dev-kmsg: "prio,seq,usec,flags[,more];text", continuation lines
// starting with a space, non-printable bytes and '\' escaped as \xNN) and syslog files written by
// rsyslog (/var/log/kern.log, /var/log/messages: "<date> <host> kernel: [uptime] text", an
// embedded newline written as #012, with or without a <PRI> in front). Pure functions;
// probes/kernel_log/kernel_log_parser reads the lines.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// The message lines of /dev/kmsg output, oldest first. Only kernel records (facility 0) are
/// kept: user space may write to /dev/kmsg but never with facility 0. A record whose text holds
/// several lines (the NVIDIA driver prints multi-line messages in one printk) gives each line.
std::vector<std::string> kmsg_lines(std::string_view text);

/// Who a syslog line says wrote it, where its format records the facility.
enum class SyslogFacility {
  kernel,      ///< a <PRI> of facility 0 (LOG_KERN)
  user_space,  ///< a <PRI> of any other facility: a program's line tagged "kernel", never the kernel's
  unrecorded,  ///< no <PRI>: the traditional formats (RSYSLOG_TraditionalFileFormat, RSYSLOG_FileFormat)
};

struct SyslogLine {
  std::string text;
  SyslogFacility facility = SyslogFacility::unrecorded;
};

/// The kernel-tagged message lines of a syslog file (lines without a "kernel:" tag, or an
/// APP-NAME "kernel" in RFC 5424, are other programs'), each with what its format says of its
/// facility: "<date> <host> kernel: text", "<6><date> <host> kernel: text" (RFC 3164 with the
/// PRI kept) and "<6>1 <rfc3339> <host> kernel - - - text" (RSYSLOG_SyslogProtocol23Format).
/// `starts_mid_line`: the text was cut from the middle of a file, so its first line is partial
/// and dropped.
std::vector<SyslogLine> syslog_kernel_lines(std::string_view text, bool starts_mid_line);

/// Index of the first line of the newest boot in `lines` (the last "Linux version ..." banner),
/// 0 when no banner is there: a syslog file holds earlier boots whose errors no longer apply.
std::size_t current_boot_start(const std::vector<std::string>& lines);

}  // namespace gd
