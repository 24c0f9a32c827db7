#include "probes/system/services.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include "host_captures.hpp"
#include "ldconfig_tree.hpp"
#include "core/fact_key.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;

namespace {

// /proc/version of WSL2 (leoheck/kiri#28) and of WSL1 (powersj/whatsthis#10), as users posted them.
constexpr std::string_view k_wsl2_version =
    "Linux version 5.4.72-microsoft-standard-WSL2 (oe-user@oe-host) (gcc version 8.2.0 (GCC)) #1 SMP Wed Oct 28 "
    "23:40:43 UTC 2020\n";
constexpr std::string_view k_wsl2_old_version =
    "Linux version 4.19.128-microsoft-standard (oe-user@oe-host) (gcc version 8.2.0 (GCC)) #1 SMP Tue Jun 23 12:58:10 "
    "UTC 2020\n";
constexpr std::string_view k_wsl1_version =
    "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #488-Microsoft Mon Sep 01 "
    "13:43:00 PST 2020\n";

FactSet run_on(const TempTree& tree, FactSet facts = {}) {
  gd::RealHost host(tree.root(), {});
  if (!facts.find("host.arch"_fact)) {
    facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  }
  gd::probe_services(host, gd::ProbeOptions{}, facts);
  return facts;
}

FactState state_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  return fact->state;
}

}  // namespace

TEST_CASE("services: a glibc host with both NVIDIA daemons running", "[probes][services]") {
  TempTree tree;
  tree.file("/etc/os-release", "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"24.04\"\nPRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\n");
  tree.file("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "loader");
  tree.file("/usr/bin/ldd", "echo 'ldd (Ubuntu GLIBC 2.39-0ubuntu8.9) 2.39'\n");
  tree.file("/proc/version", "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP\n");
  tree.file("/proc/1/comm", "systemd\n");
  tree.file("/proc/812/comm", "nvidia-persiste\n");  // nvidia-persistenced, cut to 15 characters
  tree.file("/proc/1403/comm", "nv-fabricmanage\n");  // nv-fabricmanager
  tree.file("/proc/1517/comm", "nvidia-imex\n");      // nvidia-imex (11 characters: not cut)
  tree.file("/proc/self/comm", "gpudoctor\n");        // not a process number: skipped
  tree.file("/proc/cpuinfo", "processor : 0\n");
  FactSet facts = run_on(tree);
  CHECK(facts.get_string("system.os_id"_fact) == "ubuntu");
  CHECK(facts.get_string("system.os_version"_fact) == "24.04");
  CHECK(facts.get_string("system.os_like"_fact) == "debian");
  CHECK(facts.get_string("system.os_pretty_name"_fact) == "Ubuntu 24.04.3 LTS");
  CHECK(facts.get_bool("system.is_nixos"_fact) == false);
  CHECK(facts.get_bool("system.is_wsl2"_fact) == false);
  CHECK(facts.get_string("system.libc"_fact) == "glibc");
  CHECK(facts.get_string("system.glibc_version"_fact) == "2.39");
  CHECK(facts.find("system.glibc_version"_fact)->source == "/usr/bin/ldd");
  CHECK(facts.get_bool("service.persistenced.running"_fact) == true);
  CHECK(facts.get_bool("service.fabricmanager.running"_fact) == true);
  CHECK(facts.get_bool("service.imex.running"_fact) == true);
}

TEST_CASE("services: daemons not running, or not visible from a container", "[probes][services]") {
  TempTree tree;
  tree.file("/proc/1/comm", "systemd\n");
  tree.file("/proc/2/comm", "kthreadd\n");
  tree.file("/proc/3/comm", "nvidia-persistenced-but-longer\n");  // not what the kernel writes: no match
  tree.file("/proc/4/comm", "nvidia-imex-ctl\n");  // the IMEX query tool, not the daemon
  FactSet facts = run_on(tree);
  CHECK(facts.get_bool("service.persistenced.running"_fact) == false);
  CHECK(facts.get_bool("service.imex.running"_fact) == false);
  CHECK(facts.get_bool("service.fabricmanager.running"_fact) == false);

  FactSet in_container;
  in_container.set("host.arch"_fact, std::string("x86_64"), "uname");
  facts = run_on(tree, std::move(in_container));
  // container.in_container comes from the containers probe; without it the answer stands.
  CHECK(facts.get_bool("service.fabricmanager.running"_fact) == false);

  TempTree empty_proc;
  empty_proc.dir("/proc/driver");
  facts = run_on(empty_proc);
  CHECK(state_of(facts, "service.fabricmanager.running"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("service.fabricmanager.running"_fact)->reason, Catch::Contains("no processes"));
  TempTree no_proc;
  facts = run_on(no_proc);
  CHECK(state_of(facts, "service.persistenced.running"_fact) == FactState::unknown);
}

TEST_CASE("services: NixOS, Alpine, WSL", "[probes][services]") {
  TempTree nixos;
  nixos.file("/etc/os-release", "ID=nixos\nNAME=NixOS\nVERSION_ID=\"25.05\"\nPRETTY_NAME=\"NixOS 25.05 (Warbler)\"\n");
  nixos.file("/etc/NIXOS", "");
  nixos.file("/run/current-system/sw/bin/ldd", "echo 'ldd (GNU libc) 2.40'\n");
  FactSet facts = run_on(nixos);
  CHECK(facts.get_bool("system.is_nixos"_fact) == true);
  CHECK(facts.get_string("system.os_id"_fact) == "nixos");
  CHECK(facts.get_string("system.libc"_fact) == "glibc");  // no /lib64 loader on NixOS, but its ldd says so
  CHECK(facts.get_string("system.glibc_version"_fact) == "2.40");

  TempTree marker_only;  // os-release missing, the NixOS marker file there
  marker_only.file("/etc/NIXOS", "");
  facts = run_on(marker_only);
  CHECK(facts.get_bool("system.is_nixos"_fact) == true);
  CHECK(state_of(facts, "system.os_id"_fact) == FactState::unknown);

  TempTree alpine;
  alpine.file("/usr/lib/os-release", "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.19.8\n");  // only the fallback path
  alpine.file("/lib/ld-musl-x86_64.so.1", "musl");
  facts = run_on(alpine);
  CHECK(facts.get_string("system.os_id"_fact) == "alpine");
  CHECK(facts.find("system.os_id"_fact)->source == "/usr/lib/os-release");
  CHECK(facts.get_string("system.libc"_fact) == "musl");
  CHECK(state_of(facts, "system.glibc_version"_fact) == FactState::absent);
  CHECK(state_of(facts, "system.os_like"_fact) == FactState::absent);

  for (auto [text, wsl2] : {std::pair{k_wsl2_version, true}, std::pair{k_wsl2_old_version, true}, std::pair{k_wsl1_version, false}}) {
    TempTree wsl;
    wsl.file("/proc/version", text);
    CHECK(run_on(wsl).get_bool("system.is_wsl2"_fact) == wsl2);
  }
  // Without /proc/version, the kernel release from uname decides.
  TempTree bare;
  FactSet from_uname;
  from_uname.set("host.arch"_fact, std::string("x86_64"), "uname");
  from_uname.set("host.kernel_release"_fact, std::string("5.15.167.4-microsoft-standard-WSL2"), "uname");
  CHECK(run_on(bare, std::move(from_uname)).get_bool("system.is_wsl2"_fact) == true);
}

TEST_CASE("services: os-release that cannot be read", "[probes][services]") {
  gd::Capture capture;
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths["/etc/os-release"].read = std::unexpected(gd::IoError{EACCES});
  gd::ReplayHost host(capture);
  FactSet facts;
  facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  gd::probe_services(host, gd::ProbeOptions{}, facts);
  CHECK(state_of(facts, "system.os_id"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("system.os_id"_fact)->reason, Catch::Contains("needs root"));
  CHECK(facts.get_bool("system.is_nixos"_fact) == false);
}

TEST_CASE("services: the captured H200 container", "[probes][services]") {
  gd::ReplayHost host(gd::test::host_capture("h200-container-580.159.04"));
  FactSet facts;
  facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  facts.set("host.kernel_release"_fact, std::string("6.18.44-fc-v657-gpu"), "uname");
  gd::probe_services(host, gd::ProbeOptions{}, facts);
  CHECK(facts.get_string("system.os_version"_fact) == "24.04");
  CHECK(facts.get_string("system.os_pretty_name"_fact) == "Ubuntu 24.04.3 LTS");
  CHECK(facts.get_string("system.os_id"_fact) == "linux");  // the observation did not print ID=; os-release(5)'s default
  CHECK(facts.get_bool("system.is_nixos"_fact) == false);
  CHECK(facts.get_bool("system.is_wsl2"_fact) == false);
  CHECK(facts.get_string("system.libc"_fact) == "glibc");
  CHECK(facts.get_string("system.glibc_version"_fact) == "2.39");
  // The capture lists no processes: the daemons are unknown, not "not running".
  CHECK(state_of(facts, "service.fabricmanager.running"_fact) == FactState::unknown);
}

}  // namespace GD_UNITY_ID
