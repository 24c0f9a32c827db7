// Kernel-log framing on real-format input: /dev/kmsg records as the kernel writes them
// (Documentation/ABI/testing/dev-kmsg, kernel/printk/printk.c) and rsyslog files.

#include "probes/kernel_log/kernel_log_framing.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

std::string joined(std::initializer_list<std::string_view> lines) {
  std::string out;
  for (std::string_view line : lines) {
    out += std::string(line) + "\n";
  }
  return out;
}

using Lines = std::vector<std::string>;
using gd::SyslogFacility;

Lines texts(const std::vector<gd::SyslogLine>& lines) {
  Lines out;
  for (const gd::SyslogLine& line : lines) out.push_back(line.text);
  return out;
}

}  // namespace

TEST_CASE("kmsg records: header, continuation lines, escapes, user-space records", "[probes][kernel_log_framing]") {
  // The example of Documentation/ABI/testing/dev-kmsg, an NVIDIA multi-line record as one printk
  // (embedded newlines escaped \x0a) and a record written by systemd (facility 3, not the kernel).
  std::string text = joined({
      "7,160,424069,-;pci_root PNP0A03:00: host bridge window [io  0x0000-0x0cf7] (ignored)",
      " SUBSYSTEM=acpi",
      " DEVICE=+acpi:PNP0A03:00",
      "6,339,5140900,-;NET: Registered protocol family 10",
      "30,340,5690716,-;udevd[80]: starting version 181",
      "3,1201,14523411,-;NVRM: API mismatch: the client 'nvidia-smi' (pid 2242)\\x0aNVRM: has the version 580.95.05, "
      "but this kernel module has\\x0aNVRM: the version 580.65.06.  Please make sure that this\\x0aNVRM: kernel module "
      "and all NVIDIA driver components\\x0aNVRM: have the same version.",
      "4,1202,14523499,-,caller=T2242;path with a backslash: C:\\x5ctemp",
  });
  Lines lines = gd::kmsg_lines(text);
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] == "pci_root PNP0A03:00: host bridge window [io  0x0000-0x0cf7] (ignored)");
  CHECK(lines[1] == "NET: Registered protocol family 10");
  CHECK(lines[2] == "NVRM: API mismatch: the client 'nvidia-smi' (pid 2242)");
  CHECK(lines[6] == "NVRM: have the same version.");
  CHECK(lines[7] == "path with a backslash: C:\\temp");
}

TEST_CASE("kmsg output cut in the middle of a record skips the partial first line", "[probes][kernel_log_framing]") {
  Lines lines = gd::kmsg_lines("of a record\n6,2,3,-;NVRM: loading NVIDIA UNIX Open Kernel Module\n");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "NVRM: loading NVIDIA UNIX Open Kernel Module");
}

TEST_CASE("syslog files: kernel lines only, uptime and #012 handled", "[probes][kernel_log_framing]") {
  std::string text = joined({
      "Nov 29 20:43:01 host kernel: [   12.345678] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, "
      "GPU has fallen off the bus.",
      "Nov 29 20:43:02 host systemd[1]: Started Session 3 of User root; kernel: not the kernel",
      "2024-07-02T18:46:08.681559+00:00 host kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07",
      "2024-07-02 18:46:08.681559 kernel:[   21.766727] NVRM nvAssertFailedNoLog: Assertion failed: 0 @ osapi.c:1688",
      "Nov 29 20:43:03 host kernel: NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82)#012NVRM: installed in this "
      "system is not supported by open",
  });
  Lines lines = texts(gd::syslog_kernel_lines(text, false));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] ==
        "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
  CHECK(lines[1] == "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07");
  CHECK(lines[2] == "NVRM nvAssertFailedNoLog: Assertion failed: 0 @ osapi.c:1688");
  CHECK(lines[3] == "NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82)");
  CHECK(lines[4] == "NVRM: installed in this system is not supported by open");

  Lines cut = texts(gd::syslog_kernel_lines("ed kernel: partial\nNov 29 20:43:01 host kernel: whole\n", true));
  REQUIRE(cut.size() == 1);
  CHECK(cut[0] == "whole");
}

TEST_CASE("only the newest boot of a syslog file counts", "[probes][kernel_log_framing]") {
  Lines lines = {"Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (gcc 13.2.0) #49-Ubuntu SMP",
                 "NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus.",
                 "Linux version 6.8.0-50-generic (buildd@lcy02-amd64-103) (gcc 13.2.0) #50-Ubuntu SMP",
                 "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.65.06"};
  CHECK(gd::current_boot_start(lines) == 2);
  CHECK(gd::current_boot_start({"no banner"}) == 0);
}

// The lines below are the bytes a private rsyslogd 8.2302.0 (Debian 12) wrote for
// `logger -u SOCKET -t kernel -p kern.err "NVRM: Xid ..."` run as nobody (logger sends kern as
// user: <11> = user.err), for a hand-made "<3>kernel: ..." datagram, and for the kernel's own
// lines (imklog: APP-NAME "kernel", PROCID, MSGID and STRUCTURED-DATA "-"), in each of rsyslog's
// file templates (runtime/rsconf.c), plus journalctl's short output.
TEST_CASE("syslog files: the facility where the format records it", "[probes][kernel_log_framing]") {
  const std::string xid = "NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
  std::string text = joined({
      // RSYSLOG_SyslogProtocol23Format: logger's line (user.err), the kernel's (kern.warning).
      "<11>1 2026-12-02T04:51:04.799624+00:00 vm kernel - - -  " + xid,
      "<4>1 2026-12-02T04:51:05.000001+00:00 vm kernel - - -  " + xid,
      // ... a structured-data element with an escaped ']' and a program that is not the kernel.
      "<6>1 2026-12-02T04:51:06.000001+00:00 vm kernel - - [meta x=\"a\\]b\"][o y=\"1\"] NVRM: GPU 0000:00:06.0: ok",
      "<14>1 2026-12-02T04:51:07.000001+00:00 vm sshd 812 - - kernel: NVRM: Xid (PCI:0000:00:06): 79, not the kernel",
      // A "<%PRI%>%TIMESTAMP% %HOSTNAME% %syslogtag%%msg%" template (RFC 3164 with the PRI kept).
      "<13>Dec  2 04:51:04 vm kernel: " + xid,
      "<0>Dec  2 04:51:08 vm kernel: NVRM: GPU at PCI:0000:00:06: GPU-1",
      // RSYSLOG_FileFormat (Debian 12's default), RSYSLOG_TraditionalFileFormat, journalctl -o short:
      // no facility, the kernel's line and logger's are the same bytes.
      "2026-12-02T04:51:04.799624+00:00 vm kernel: " + xid,
      "Dec  2 04:51:04 vm kernel: " + xid,
      "Dec 02 04:51:04 vm kernel: " + xid,
      // Not a PRI: out of range, no digits.
      "<192>Dec  2 04:51:04 vm kernel: out of range",
  });
  std::vector<gd::SyslogLine> lines = gd::syslog_kernel_lines(text, false);
  REQUIRE(lines.size() == 9);
  CHECK(lines[0].facility == SyslogFacility::user_space);
  CHECK(lines[0].text == xid);
  CHECK(lines[1].facility == SyslogFacility::kernel);
  CHECK(lines[1].text == xid);
  CHECK(lines[2].facility == SyslogFacility::kernel);
  CHECK(lines[2].text == "NVRM: GPU 0000:00:06.0: ok");
  CHECK(lines[3].facility == SyslogFacility::user_space);
  CHECK(lines[3].text == xid);
  CHECK(lines[4].facility == SyslogFacility::kernel);
  CHECK(lines[4].text == "NVRM: GPU at PCI:0000:00:06: GPU-1");
  for (std::size_t i = 5; i < 8; ++i) {
    CHECK(lines[i].facility == SyslogFacility::unrecorded);
    CHECK(lines[i].text == xid);
  }
  // "<192>" is no PRI, so the line is a traditional one whose tag is still found.
  CHECK(lines[8].facility == SyslogFacility::unrecorded);
}

}  // namespace GD_UNITY_ID
