// The fabric manager's start against the CUDA processes already on the GPUs, and its version from
// its log (probes/system/fabric_manager), on /proc trees in the kernel's formats (proc(5): the
// stat line as /proc/self/stat prints it, /proc/stat's btime, /proc/PID/fd links).
#include "probes/system/fabric_manager.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "fact_access.hpp"
#include "probes/system/services.hpp"
#include "sys/real_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;

namespace {

/// A /proc/PID/stat line as the kernel writes it (fs/proc/array.c do_task_stat), with the start
/// time (field 22) in clock ticks after boot; the other fields from a real `cat /proc/self/stat`.
std::string stat_line(std::string_view pid, std::string_view comm, std::uint64_t start_ticks) {
  return std::string(pid) + " (" + std::string(comm) + ") S 1 " + std::string(pid) + " " + std::string(pid) +
         " 0 -1 4194560 2113 0 0 0 12 30 0 0 20 0 29 0 " + std::to_string(start_ticks) +
         " 1234567168 4500 18446744073709551615 94769317654528 94769317674409 140731805161936 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
}

// /proc/stat: btime 1796544000 is 2026-12-06 08:00:00 UTC.
constexpr std::string_view k_proc_stat =
    "cpu  3183107 128017 654135 728046 9142 0 1643 4722 0 0\n"
    "cpu0 1530103 65010 308397 444631 3015 0 144 2354 0 0\n"
    "intr 1 2 3\n"
    "ctxt 23368108\n"
    "btime 1796544000\n"
    "processes 1444102\n";

// Fabric Manager's log: its start block (dumpCurrentConfigOptions: the version line, then the
// options), once for each start; the timestamp and tid prefix as the daemon writes it.
constexpr std::string_view k_log =
    "[Dec 06 2026 08:36:21] [INFO] [tid 1187] Fabric Manager version 580.65.06 is running with the following configuration options\n"
    "[Dec 06 2026 08:36:21] [INFO] [tid 1187] Logging level = 4\n"
    "[Dec 06 2026 08:36:21] [INFO] [tid 1187] Logging file name/path = /var/log/fabricmanager.log\n"
    "[Dec 06 2026 08:36:24] [INFO] [tid 1201] Successfully configured all the available NVSwitches to route GPU NVLink traffic.\n"
    "[Dec 06 2026 11:48:02] [INFO] [tid 5120] Fabric Manager version 580.95.05 is running with the following configuration options\n"
    "[Dec 06 2026 11:48:02] [INFO] [tid 5120] Logging level = 4\n";

/// A process with these open files (/proc/PID/fd/N -> target).
void process(const TempTree& tree, std::string_view pid, std::string_view comm, std::uint64_t start_ticks,
             const std::vector<std::string>& open_files) {
  const std::string base = "/proc/" + std::string(pid);
  tree.file(base + "/comm", std::string(comm) + "\n");
  tree.file(base + "/stat", stat_line(pid, comm, start_ticks));
  tree.dir(base + "/fd");
  for (std::size_t i = 0; i < open_files.size(); ++i) tree.link(base + "/fd/" + std::to_string(i), open_files[i]);
}

/// An HGX node: systemd and nvidia-persistenced from boot, the fabric manager, and the jobs.
void hgx_boot(const TempTree& tree) {
  tree.file("/proc/stat", k_proc_stat);
  process(tree, "1", "systemd", 50, {"/dev/null", "/dev/kmsg", "socket:[12345]"});
  // NVML only: GPU nodes, no nvidia-uvm; and it is NVIDIA's daemon anyway.
  process(tree, "1012", "nvidia-persiste", 900, {"/dev/null", "/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia1"});
}

FactSet run(const TempTree& tree, FactSet facts = {}) {
  gd::RealHost host(tree.root(), {});
  if (!facts.find("host.arch"_fact)) facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  if (!facts.find("kmod.nvidia.version"_fact)) facts.set("kmod.nvidia.version"_fact, std::string("580.95.05"), "test");
  gd::probe_services(host, gd::ProbeOptions{}, facts);
  return facts;
}

}  // namespace

TEST_CASE("fabric manager: the start time field of /proc/PID/stat and btime", "[probes][services][fabric]") {
  CHECK(gd::proc_start_ticks(stat_line("1187", "nv-fabricmanage", 2318)) == 2318u);
  // A name with spaces and parentheses: the fields count from the last ')'.
  CHECK(gd::proc_start_ticks(stat_line("77", "a) (b c", 99)) == 99u);
  CHECK(gd::proc_start_ticks("16602 (cat) R 16600 16600 399 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 2358115 3133440 382") ==
        2358115u);
  CHECK_FALSE(gd::proc_start_ticks("16602 (cat) R 16600"));
  CHECK_FALSE(gd::proc_start_ticks("no parenthesis at all"));
  CHECK(gd::proc_boot_time(k_proc_stat) == 1796544000);
  CHECK_FALSE(gd::proc_boot_time("cpu 1 2 3\nbtime x\n"));
  CHECK(gd::utc_text(1796544000) == "2026-12-06 08:00:00 UTC");
  CHECK(gd::duration_text(40) == "40 s");
  CHECK(gd::duration_text(7500) == "2 h 5 min");
}

TEST_CASE("fabric manager: the version of its last start in the log", "[probes][services][fabric]") {
  CHECK(gd::fabric_manager_log_version(k_log) == "580.95.05");
  CHECK(gd::fabric_manager_log_version(k_log.substr(0, 300)) == "580.65.06");
  // `nv-fabricmanager --version` prints "Fabric Manager version is : X": not a start line.
  CHECK_FALSE(gd::fabric_manager_log_version("Fabric Manager version is : 580.95.05\n"));
  CHECK_FALSE(gd::fabric_manager_log_version("[INFO] Fabric Manager version 580.95"));  // cut before " is running"
  CHECK_FALSE(gd::fabric_manager_log_version(""));
  CHECK(gd::is_gpu_node("/dev/nvidia0"));
  CHECK(gd::is_gpu_node("/dev/nvidia15"));
  CHECK_FALSE(gd::is_gpu_node("/dev/nvidiactl"));
  CHECK_FALSE(gd::is_gpu_node("/dev/nvidia-uvm"));
  CHECK_FALSE(gd::is_gpu_node("/dev/nvidia"));
  CHECK(gd::is_uvm_node("/dev/nvidia-uvm"));
  CHECK_FALSE(gd::is_uvm_node("/dev/nvidia-uvm-tools"));
}

TEST_CASE("fabric manager: restarted under a CUDA job", "[probes][services][fabric]") {
  TempTree tree;
  hgx_boot(tree);
  // A training job from 1 h after boot, holding GPU 3 through CUDA (cuInit opened nvidia-uvm).
  process(tree, "3100", "python3", 360000,
          {"/dev/pts/0", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia3", "anon_inode:[eventfd]"});
  // An nvidia-smi loop from before: GPU nodes, no nvidia-uvm (NVML only).
  process(tree, "3500", "nvidia-smi", 370000, {"/dev/nvidiactl", "/dev/nvidia0"});
  // The fabric manager, restarted 3 h 12 min after boot; a job started after it does not count.
  process(tree, "5120", "nv-fabricmanage", 1152000, {"/dev/nvidia-nvswitchctl", "/dev/nvidia-nvswitch0"});
  process(tree, "5300", "python3", 1160000, {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0"});
  tree.file("/var/log/fabricmanager.log", k_log);
  FactSet facts = run(tree);
  CHECK(facts.get_bool("service.fabricmanager.running"_fact) == true);
  CHECK(facts.get_int("service.fabricmanager.started_s"_fact) == 11520);
  CHECK(facts.get_string("service.fabricmanager.started"_fact) == "2026-12-06 11:12:00 UTC");
  CHECK(gd::test::list_of(facts, "service.fabricmanager.older_cuda_processes"_fact) ==
        std::vector<std::string>{"pid 3100 (python3) since 2026-12-06 09:00:00 UTC, 2 h 12 min before the fabric manager"});
  CHECK(facts.get_bool("service.fabricmanager.restarted_under_cuda_processes"_fact) == true);
  CHECK(facts.get_string("service.fabricmanager.version"_fact) == "580.95.05");
  CHECK(gd::test::state_of(facts, "service.fabricmanager.version_mismatch"_fact) == FactState::absent);
}

TEST_CASE("fabric manager: started at boot, before the jobs; a version that differs", "[probes][services][fabric]") {
  TempTree tree;
  hgx_boot(tree);
  process(tree, "1187", "nv-fabricmanage", 3100, {"/dev/nvidia-nvswitchctl"});
  process(tree, "3100", "python3", 360000, {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia3"});
  tree.file("/var/log/fabricmanager.log", k_log.substr(0, 300));  // only the boot's start: 580.65.06
  FactSet facts = run(tree);
  CHECK(facts.get_int("service.fabricmanager.started_s"_fact) == 31);
  CHECK(gd::test::list_of(facts, "service.fabricmanager.older_cuda_processes"_fact).empty());
  CHECK(facts.get_bool("service.fabricmanager.restarted_under_cuda_processes"_fact) == false);
  CHECK(facts.get_string("service.fabricmanager.version"_fact) == "580.65.06");
  CHECK(facts.get_string("service.fabricmanager.version_mismatch"_fact) ==
        "nv-fabricmanager 580.65.06 (its last start in /var/log/fabricmanager.log) against the loaded nvidia.ko 580.95.05");
}

TEST_CASE("fabric manager: not running, inside a container, no log", "[probes][services][fabric]") {
  TempTree tree;
  hgx_boot(tree);
  process(tree, "3100", "python3", 360000, {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia3"});
  FactSet facts = run(tree);
  CHECK(facts.get_bool("service.fabricmanager.running"_fact) == false);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.started_s"_fact) == FactState::absent);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.restarted_under_cuda_processes"_fact) == FactState::absent);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.version"_fact) == FactState::absent);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.version_mismatch"_fact) == FactState::absent);

  // A container sees its own processes only: the host's fabric manager is not among them.
  FactSet in_container;
  in_container.set("container.in_container"_fact, true, "test");
  facts = run(tree, std::move(in_container));
  CHECK(gd::test::state_of(facts, "service.fabricmanager.restarted_under_cuda_processes"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("service.fabricmanager.restarted_under_cuda_processes"_fact)->reason, Catch::Contains("container"));

  // A folder without processes (--root of an image): nothing runs, nothing to compare.
  TempTree image;
  image.dir("/proc/driver");
  facts = run(image);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.running"_fact) == FactState::unknown);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.restarted_under_cuda_processes"_fact) == FactState::absent);

  // A log without a start line (another LOG_LEVEL, or cut): the version is unknown, named.
  tree.file("/var/log/fabricmanager.log", "[Dec 06 2026 08:36:24] [INFO] [tid 1201] Connected to 1 node.\n");
  facts = run(tree);
  CHECK(gd::test::state_of(facts, "service.fabricmanager.version"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("service.fabricmanager.version"_fact)->reason, Catch::Contains("no start line"));
}

}  // namespace GD_UNITY_ID
