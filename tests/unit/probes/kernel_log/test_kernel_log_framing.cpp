// Kernel-log framing on real-format input: /dev/kmsg records as the kernel writes them
// (Documentation/ABI/testing/dev-kmsg, kernel/printk/printk.c) and rsyslog files.

#include "probes/kernel_log/kernel_log_framing.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

std::string joined(std::initializer_list<std::string_view> lines) {
  std::string out;
  for (std::string_view line : lines) {
    out += std::string(line) + "\n";
  }
  return out;
}

using Lines = std::vector<std::string>;

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
  Lines lines = gd::syslog_kernel_lines(text, false);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] ==
        "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
  CHECK(lines[1] == "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07");
  CHECK(lines[2] == "NVRM nvAssertFailedNoLog: Assertion failed: 0 @ osapi.c:1688");
  CHECK(lines[3] == "NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82)");
  CHECK(lines[4] == "NVRM: installed in this system is not supported by open");

  Lines cut = gd::syslog_kernel_lines("ed kernel: partial\nNov 29 20:43:01 host kernel: whole\n", true);
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
