// The kernel-log probe through the Host layer: /dev/kmsg captured as a read of "/dev/kmsg",
// restricted dmesg as an ordinary user, the syslog fallbacks, a huge sparse kern.log read only
// at its end (RealHost --root on a temp tree), and the healthy H200 capture (no kernel log).

#include "core/fact_key.hpp"
#include "probes/kernel_log/kernel_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "sys/capture.hpp"
#include "sys/real_host.hpp"
#include "sys/recording_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;
using gd::IoError;
using Lines = std::vector<std::string>;

namespace {

FactSet probe(Capture capture, FactSet facts = {}) {
  gd::ReplayHost host(std::move(capture));
  gd::probe_kernel_log(host, {}, facts);
  return facts;
}

Lines list(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<Lines>(fact->value);
}

std::string reason(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::unknown);
  return fact->reason;
}

// /dev/kmsg of a host whose GPU fell off the bus after the driver loaded.
const std::string k_kmsg =
    "0,0,0,-;Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) "
    "13.2.0) #49-Ubuntu SMP PREEMPT_DYNAMIC\n"
    "4,812,5214811,-;nvidia: loading out-of-tree module taints kernel.\n"
    "6,840,5339517,-;NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build\n"
    " SUBSYSTEM=pci\n"
    " DEVICE=+pci:0000:01:00.0\n"
    "4,2210,8821351512,-;NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    "3,2211,8821351530,-;NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n";

// The same story in an Ubuntu kern.log, after an older boot that had its own Xid.
const std::string k_kern_log =
    "Nov 28 09:00:01 gpu1 kernel: [    0.000000] Linux version 6.8.0-48-generic (buildd@lcy02-amd64-103) #48-Ubuntu\n"
    "Nov 28 10:13:44 gpu1 kernel: [ 4402.113201] NVRM: Xid (PCI:0000:01:00): 48, pid=2211, name=python3, An "
    "uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 1.\n"
    "Nov 29 20:40:01 gpu1 kernel: [    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu\n"
    "Nov 29 20:40:09 gpu1 kernel: [    8.114023] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.65.06\n"
    "Nov 29 20:43:01 gpu1 systemd[1]: Started session-3.scope - Session 3 of User ubuntu.\n"
    "Nov 29 20:43:01 gpu1 kernel: [  180.345678] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, "
    "GPU has fallen off the bus.\n";

}  // namespace

TEST_CASE("kernel log probe: /dev/kmsg is read first", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = k_kmsg;
  FactSet facts = probe(c);
  CHECK(facts.get_bool("klog.readable"_fact) == true);
  CHECK(facts.get_string("klog.source"_fact) == "/dev/kmsg");
  CHECK(facts.get_int("klog.lines"_fact) == 5);
  CHECK(list(facts, "klog.xid_codes"_fact) == Lines{"79"});
  CHECK(list(facts, "klog.xids"_fact) == Lines{"79 0000:01:00.0 GPU has fallen off the bus."});
  CHECK(facts.get_bool("klog.fallen_off_bus"_fact) == true);
  CHECK(list(facts, "klog.fallen_off_bus_gpus"_fact) == Lines{"0000:01:00.0"});
  CHECK(facts.get_bool("klog.gsp_timeout"_fact) == false);
  CHECK(list(facts, "klog.rm_init_adapter"_fact).empty());
  CHECK(facts.find("klog.api_mismatch_message"_fact)->state == FactState::absent);
  CHECK(facts.find("klog.xids"_fact)->source == "/dev/kmsg");
}

TEST_CASE("kernel log probe: restricted dmesg as an ordinary user is unknown, needs root", "[probes][kernel_log]") {
  Capture c;
  c.identity = gd::Identity{1000, 1000, {}};
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{EPERM});
  c.paths["/proc/sys/kernel/dmesg_restrict"].read = std::string("1\n");
  FactSet facts = probe(c);
  std::string why = reason(facts, "klog.readable"_fact);
  CHECK(why.starts_with("needs root: /dev/kmsg EPERM (kernel.dmesg_restrict = 1)"));
  CHECK_THAT(why, Catch::Contains("/var/log/kern.log ENOENT"));
  // Every kernel-log fact is unknown for the same reason: unread is not clean.
  for (gd::FactName name : {"klog.xid_codes"_fact, "klog.fallen_off_bus"_fact, "klog.api_mismatch"_fact, "klog.gpu_not_supported"_fact}) {
    CHECK(reason(facts, name) == why);
  }
}

TEST_CASE("kernel log probe: falls back to kern.log, newest boot only", "[probes][kernel_log]") {
  Capture c;
  c.identity = gd::Identity{1000, 1000, {4}};
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{EPERM});
  c.paths["/var/log/kern.log"].read = k_kern_log;
  FactSet facts = probe(c);
  CHECK(facts.get_bool("klog.readable"_fact) == true);
  CHECK(facts.get_string("klog.source"_fact) == "/var/log/kern.log");
  CHECK(facts.get_int("klog.lines"_fact) == 3);
  // The Xid 48 of the day before belongs to an earlier boot.
  CHECK(list(facts, "klog.xid_codes"_fact) == Lines{"79"});
  // kern.log takes the kern facility only: its traditional lines are the kernel's.
  CHECK(facts.get_string("klog.source_trust"_fact) ==
        "trusted: only the logging daemon writes it, and it takes kern.* only");
}

TEST_CASE("kernel log probe: /dev/kmsg is the kernel's word", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = k_kmsg;
  CHECK(probe(c).get_string("klog.source_trust"_fact) == "kernel");
}

TEST_CASE("kernel log probe: /var/log/messages when there is no kern.log", "[probes][kernel_log]") {
  // RHEL's messages takes every program's lines; with the <PRI> kept (a "<%PRI%>..." template) the
  // kernel's lines are told from a program's.
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{ENOENT});
  c.paths["/var/log/messages"].read = std::string(
      "<3>Nov 29 20:43:02 rhel9 kernel: nvidia 0000:01:00.0: Direct firmware load for nvidia/565.57.01/gsp_tu10x.bin "
      "failed with error -2\n"
      "<3>Nov 29 20:43:02 rhel9 kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x61:0x0:1851)\n"
      "<13>Nov 29 20:44:00 rhel9 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus.\n");
  FactSet facts = probe(c);
  CHECK(facts.get_string("klog.source"_fact) == "/var/log/messages");
  CHECK(list(facts, "klog.rm_init_adapter"_fact) == Lines{"0x61:0x0:1851"});
  CHECK(list(facts, "klog.firmware_load_failures"_fact) == Lines{"nvidia/565.57.01/gsp_tu10x.bin -2"});
  // logger's line (user.notice) is not the kernel's.
  CHECK(list(facts, "klog.xid_codes"_fact).empty());
  CHECK(facts.get_bool("klog.fallen_off_bus"_fact) == false);
  CHECK_THAT(*facts.get_string("klog.source_trust"_fact),
             Catch::StartsWith("trusted: only the logging daemon writes it, and each line's <PRI> says kern") &&
                 Catch::Contains("1 'kernel:' line(s) of another facility left out"));
}

// `logger -t kernel "NVRM: Xid ..."` as rsyslog writes it into a mixed file (RSYSLOG_FileFormat).
static const std::string k_forged_syslog =
    "2026-12-02T04:51:04.799624+00:00 vm kernel: NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, "
    "GPU has fallen off the bus.\n";

static void check_untrusted(const FactSet& facts, std::string_view why) {
  CHECK(facts.get_string("klog.source"_fact) == "/var/log/syslog");
  std::string trust = *facts.get_string("klog.source_trust"_fact);
  CHECK(trust.starts_with("untrusted: "));
  CHECK_THAT(trust, Catch::Contains(std::string(why)));
  for (gd::FactName name : {"klog.readable"_fact, "klog.xid_codes"_fact, "klog.xids"_fact, "klog.fallen_off_bus"_fact, "klog.xid_count"_fact}) {
    CHECK(reason(facts, name) == "kernel log " + trust);
  }
  CHECK(facts.find("klog.xid.79"_fact) == nullptr);
}

TEST_CASE("kernel log probe: a forged Xid in a mixed file without facility is not believed", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{ENOENT});
  c.paths["/var/log/syslog"].read = k_forged_syslog;
  check_untrusted(probe(c), "/var/log/syslog takes every program's lines and records no facility (1 'kernel:' line(s)");
}

TEST_CASE("kernel log probe: a file others can write is not believed, whatever it holds", "[probes][kernel_log]") {
  // The kernel's own <4> line, but in a world-writable file: anyone could have written it.
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{ENOENT});
  c.paths["/var/log/syslog"].read = std::string(
      "<4>1 2026-12-02T04:51:05.000001+00:00 vm kernel - - -  NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', "
      "name=<unknown>, GPU has fallen off the bus.\n");
  gd::FileStat world;
  world.kind = gd::FileKind::regular;
  world.mode = 0666;
  c.paths["/var/log/syslog"].stat = world;
  check_untrusted(probe(c), "/var/log/syslog is world-writable (mode 0666)");

  // Owned by a user: the same.
  gd::FileStat user = world;
  user.mode = 0644;
  user.uid = 1000;
  c.paths["/var/log/syslog"].stat = user;
  check_untrusted(probe(c), "/var/log/syslog is owned by uid 1000, not root or the syslog user");
}

TEST_CASE("kernel log probe: a mixed file without kernel lines is clean, not untrusted", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{ENOENT});
  c.paths["/var/log/syslog"].read = std::string("2026-12-02T04:51:04.799624+00:00 vm systemd[1]: Started cron.service.\n");
  FactSet facts = probe(c);
  CHECK(facts.get_bool("klog.readable"_fact) == true);
  CHECK(list(facts, "klog.xid_codes"_fact).empty());
  CHECK(facts.get_string("klog.source_trust"_fact) ==
        "trusted: only the logging daemon writes it, and no line in it is the kernel's");
}

TEST_CASE("kernel log probe: a trusted file after an untrusted one is used", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = std::unexpected(IoError{ENOENT});
  c.paths["/var/log/messages"].read = k_forged_syslog;
  c.paths["/var/log/syslog"].read = std::string(
      "<4>1 2026-12-02T04:51:05.000001+00:00 vm kernel - - -  NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', "
      "name=<unknown>, GPU has fallen off the bus.\n");
  FactSet facts = probe(c);
  CHECK(facts.get_string("klog.source"_fact) == "/var/log/syslog");
  CHECK(list(facts, "klog.xid_codes"_fact) == Lines{"79"});
  CHECK(facts.get_bool("klog.fallen_off_bus"_fact) == true);
}

TEST_CASE("kernel log probe: nothing readable as root is unknown, not needs root", "[probes][kernel_log]") {
  FactSet facts = probe(Capture{});
  CHECK(reason(facts, "klog.readable"_fact) ==
        "no kernel log readable: /dev/kmsg ENOENT, /var/log/kern.log ENOENT, /var/log/messages ENOENT, "
        "/var/log/syslog ENOENT");
}

TEST_CASE("kernel log probe: an API mismatch counts only for the loaded module", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read = std::string(
      "3,1201,14523411,-;NVRM: API mismatch: the client 'nvidia-smi' (pid 2242)\\x0aNVRM: has the version 580.95.05, "
      "but this kernel module has\\x0aNVRM: the version 580.65.06.  Please make sure that this\\x0aNVRM: kernel module "
      "and all NVIDIA driver components\\x0aNVRM: have the same version.\n");
  FactSet loaded_same;
  loaded_same.set("kmod.nvidia.version"_fact, std::string("580.65.06"));
  FactSet current = probe(c, loaded_same);
  CHECK(current.get_bool("klog.api_mismatch"_fact) == true);
  CHECK(current.get_string("klog.api_mismatch_message"_fact) ==
        "API mismatch: the client 'nvidia-smi' (pid 2242) has the version 580.95.05, but this kernel module has the "
        "version 580.65.06.");

  // The module was reloaded since (now 580.95.05): the message is history.
  FactSet reloaded;
  reloaded.set("kmod.nvidia.version"_fact, std::string("580.95.05"));
  CHECK(probe(c, reloaded).get_bool("klog.api_mismatch"_fact) == false);
  // The module version could not be read: the message is taken at its word.
  CHECK(probe(c).get_bool("klog.api_mismatch"_fact) == true);
}

TEST_CASE("kernel log probe: a 2 GB sparse kern.log is read only at its end", "[probes][kernel_log]") {
  gd::test::TempTree tree;
  tree.dir("/var/log");
  const std::string tail =
      "\nNov 29 20:43:01 gpu1 kernel: [  180.345678] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', "
      "name=<unknown>, GPU has fallen off the bus.\n";
  const off_t size = off_t{2} * 1024 * 1024 * 1024;
  int fd = ::open(tree.at("/var/log/kern.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, size - static_cast<off_t>(tail.size())) == 0);
  REQUIRE(::pwrite(fd, tail.data(), tail.size(), size - static_cast<off_t>(tail.size())) ==
          static_cast<ssize_t>(tail.size()));
  ::close(fd);

  gd::RealHost real(tree.root(), {});
  Capture seen;
  gd::RecordingHost host(real, seen);
  FactSet facts;
  gd::probe_kernel_log(host, {}, facts);
  CHECK(facts.get_string("klog.source"_fact) == "/var/log/kern.log");
  // The tree is the test runner's: its kern.log is believed only when that is root.
  if (::geteuid() == 0) {
    CHECK(list(facts, "klog.xid_codes"_fact) == Lines{"79"});
  } else {
    CHECK_THAT(reason(facts, "klog.xid_codes"_fact), Catch::Contains("not root or the syslog user"));
  }
  // One read of the last 4 MiB, nothing before it.
  const gd::CapturedPath& path = seen.paths.at("/var/log/kern.log");
  CHECK_FALSE(path.read.has_value());
  REQUIRE(path.ranges.size() == 1);
  CHECK(path.ranges[0].offset == static_cast<std::uint64_t>(size) - 4 * 1024 * 1024);
}

TEST_CASE("kernel log probe: the healthy H200 container has no kernel log: unknown, not clean",
          "[probes][kernel_log]") {
  FactSet facts = probe(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(reason(facts, "klog.readable"_fact).starts_with("no kernel log readable: /dev/kmsg ENOENT"));
  CHECK(facts.find("klog.xid_codes"_fact)->state == FactState::unknown);
}

TEST_CASE("kernel log probe: in a container only the Xids of its GPUs count", "[probes][kernel_log]") {
  // A container that can read /dev/kmsg sees the host's log; /proc/driver/nvidia/gpus lists only
  // the GPUs it was given (kmod.nvidia.gpus).
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read =
      k_kmsg + "4,2300,8821400000,-;NVRM: Xid (PCI:0000:3b:00): 63, pid=1896, name=python3, Row Remapper: New row "
               "marked for remapping, reset gpu to activate.\n";
  FactSet known;
  known.set("container.in_container"_fact, true, "test");
  known.set("kmod.nvidia.gpus"_fact, Lines{"0000:3b:00.0 NVIDIA H100 80GB HBM3"}, "test");
  FactSet facts = probe(c, known);
  CHECK(list(facts, "klog.xid_codes"_fact) == Lines{"63"});
  CHECK(list(facts, "klog.xid.63"_fact) ==
        Lines{"63 0000:3b:00.0 Row Remapper: New row marked for remapping, reset gpu to activate."});
  CHECK(facts.find("klog.xid.79"_fact) == nullptr);
  CHECK(list(facts, "klog.xids_of_other_gpus"_fact) == Lines{"79 0000:01:00.0 GPU has fallen off the bus."});
  CHECK(facts.get_bool("klog.fallen_off_bus"_fact) == false);
  CHECK(facts.get_int("klog.xid_count"_fact) == 1);

  SECTION("on the host every GPU's Xid counts") {
    known.set("container.in_container"_fact, false, "test");
    FactSet host = probe(c, known);
    CHECK(list(host, "klog.xid_codes"_fact) == Lines{"63", "79"});
    CHECK(list(host, "klog.xids_of_other_gpus"_fact).empty());
    CHECK(host.get_bool("klog.fallen_off_bus"_fact) == true);
  }
}

TEST_CASE("kernel log probe: an Xid before a module reload is not counted", "[probes][kernel_log]") {
  Capture c;
  c.paths[std::string(gd::k_kernel_log_path)].read =
      k_kmsg + "6,2400,9000000000,-;NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build\n";
  FactSet facts = probe(c);
  CHECK(list(facts, "klog.xid_codes"_fact).empty());
  CHECK(facts.get_bool("klog.fallen_off_bus"_fact) == false);
  CHECK(list(facts, "klog.xids_before_module_load"_fact) == Lines{"79 0000:01:00.0 GPU has fallen off the bus."});
}

}  // namespace GD_UNITY_ID
