// /dev/kmsg records and syslog files, then each line through the NVRM/Xid parsers.
#include "fuzz_target.hpp"
#include "probes/kernel_log/kernel_log_framing.hpp"
#include "probes/kernel_log/kernel_log_parser.hpp"

GD_FUZZ_TEXT({
  for (const std::string& line : gd::kmsg_lines(text)) (void)gd::parse_xid_line(line);
  for (const gd::SyslogLine& line : gd::syslog_kernel_lines(text, true)) (void)gd::parse_xid_line(line.text);
  gd::fuzz::each_line(text, [](std::string_view line) { (void)gd::parse_xid_line(line); });
})
