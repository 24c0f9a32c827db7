#include "probes/devices/device_nodes.hpp"

#include <catch2/catch.hpp>

#include "fact_access.hpp"

#include <cerrno>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;
using gd::FileKind;
using gd::FileStat;

using gd::test::state_of;

namespace {

// /proc/devices of the real H200 host, shortened to the lines that matter (nvidia-uvm is 238).
constexpr std::string_view k_proc_devices =
    "Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n238 nvidia-uvm\n240 nvidia-nvlink\n241 nvidia-caps\n\n"
    "Block devices:\n254 virtblk\n";

// The H200's information file (Device Minor 0).
constexpr std::string_view k_information =
    "Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f\nBus Location: \t 0000:00:06.0\n"
    "Device Minor: \t 0\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n";

FileStat char_node(std::uint32_t major, std::uint32_t minor, std::uint32_t mode = 0666, std::uint32_t gid = 0) {
  FileStat st;
  st.kind = FileKind::char_device;
  st.major = major;
  st.minor = minor;
  st.mode = mode;
  st.gid = gid;
  return st;
}

void add_node(Capture& c, const std::string& path, FileStat st, std::optional<int> open = std::nullopt) {
  c.paths[path].stat = st;
  if (open) {
    c.paths[path].open = *open;
  }
}

/// A host like the H200 container (ls -l /dev/nvidia* in observations.md), as user `uid`.
Capture h200_like(std::uint32_t uid = 1000) {
  Capture c;
  c.identity = gd::Identity{uid, uid, {}};
  c.paths["/proc/devices"].read = std::string(k_proc_devices);
  c.paths["/proc/driver/nvidia/gpus/0000:00:06.0/information"].read = std::string(k_information);
  add_node(c, "/dev/nvidia0", char_node(195, 0));
  add_node(c, "/dev/nvidiactl", char_node(195, 255));
  add_node(c, "/dev/nvidia-uvm", char_node(238, 0));
  add_node(c, "/dev/nvidia-uvm-tools", char_node(238, 1));
  add_node(c, "/dev/nvidia-caps/nvidia-cap1", char_node(241, 1, 0400));
  add_node(c, "/dev/nvidia-caps/nvidia-cap2", char_node(241, 2, 0444));
  return c;
}

FactSet run(Capture capture) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  gd::probe_device_nodes(host, gd::ProbeOptions{}, facts);
  return facts;
}

std::vector<std::string> list_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  INFO("fact " << name);
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<std::vector<std::string>>(fact->value);
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("device nodes: node_state", "[probes][device_nodes]") {
  gd::IoResult<FileStat> ok = char_node(195, 255);
  CHECK(gd::node_state(ok, 195, 0) == "ok");
  CHECK(gd::node_state(ok, 195, EPERM) == "eperm");
  CHECK(gd::node_state(ok, 195, EACCES) == "eacces");
  CHECK(gd::node_state(ok, 195, ENXIO) == "enxio");
  CHECK(gd::node_state(ok, 195, ENODEV) == "enodev");
  CHECK(gd::node_state(ok, 195, EIO) == "open-failed");
  CHECK(gd::node_state(ok, 238, 0) == "wrong-major");  // the major decides, whatever the open did
  CHECK(gd::node_state(ok, std::nullopt, ENXIO) == "enxio");
  CHECK(gd::node_state(ok, 195, std::nullopt) == std::nullopt);
  CHECK(gd::node_state(std::unexpected(gd::IoError{ENOENT}), 195, std::nullopt) == "missing");
  CHECK(gd::node_state(std::unexpected(gd::IoError{EACCES}), 195, std::nullopt) == std::nullopt);
  FileStat file;
  file.kind = FileKind::regular;
  CHECK(gd::node_state(file, 195, std::nullopt) == "not-char");
}

TEST_CASE("device nodes: the healthy H200 capture", "[probes][device_nodes]") {
  FactSet facts = run(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(facts.get_int("proc.devices.nvidia_major"_fact) == 195);
  CHECK(facts.get_int("proc.devices.uvm_major"_fact) == 238);
  CHECK(facts.get_int("proc.devices.caps_major"_fact) == 241);
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "ok");
  CHECK(facts.get_string("dev.nvidiactl.device"_fact) == "195:255");
  CHECK(facts.get_string("dev.uvm.state"_fact) == "ok");
  CHECK(facts.get_int("dev.uvm.major"_fact) == 238);
  CHECK(facts.get_string("dev.uvm_tools.state"_fact) == "ok");
  CHECK(facts.get_string("dev.uvm_tools.device"_fact) == "238:1");
  // No /dev/nvidia-modeset in that container (observations.md "devnodes"); CUDA does not need it.
  CHECK(facts.get_string("dev.modeset.state"_fact) == "missing");
  CHECK(state_of(facts, "dev.modeset.device"_fact) == FactState::absent);
  CHECK(facts.get_int("dev.gpu_count"_fact) == 1);
  CHECK(list_of(facts, "dev.gpu_uuids"_fact) == Strings{"GPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f"});
  CHECK(list_of(facts, "dev.gpu_nodes"_fact) == Strings{"/dev/nvidia0 195:0"});
  CHECK(list_of(facts, "dev.gpu_nodes_missing"_fact).empty());
  CHECK(list_of(facts, "dev.gpu_nodes_invalid"_fact).empty());
  CHECK(list_of(facts, "dev.gpu_nodes_denied"_fact).empty());
  CHECK(list_of(facts, "dev.eperm_nodes"_fact).empty());
  CHECK(list_of(facts, "dev.eacces_nodes"_fact).empty());
  CHECK(list_of(facts, "dev.caps_nodes"_fact) ==
        Strings{"/dev/nvidia-caps/nvidia-cap1 241:1 0400", "/dev/nvidia-caps/nvidia-cap2 241:2 0444"});
  CHECK(facts.get_bool("dev.nvidia_nodes_present"_fact) == true);
  CHECK(facts.get_bool("dev.dxg.present"_fact) == false);
  // The container has no /dev/char: unknown, not "all links missing".
  CHECK(state_of(facts, "dev.char_links_missing"_fact) == FactState::unknown);
  Strings nodes = list_of(facts, "dev.nodes"_fact);
  CHECK(nodes.front() == "/dev/nvidiactl char 195:255 0666 0:0 ok");
  CHECK(nodes.back() == "/dev/nvidia0 char 195:0 0666 0:0 ok");
}

TEST_CASE("device nodes: /dev/null bind-mounted over /dev/nvidia-uvm", "[probes][device_nodes]") {
  // The fault injection of observations.md (cuInit then returns 999): the node is char 1:3.
  Capture c = h200_like(0);
  add_node(c, "/dev/nvidia-uvm", char_node(1, 3));
  FactSet facts = run(c);
  CHECK(facts.get_string("dev.uvm.state"_fact) == "wrong-major");
  CHECK(facts.get_int("dev.uvm.major"_fact) == 1);
  CHECK(facts.get_string("dev.uvm.device"_fact) == "1:3");
  CHECK(facts.get_int("proc.devices.uvm_major"_fact) == 238);
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "ok");
}

TEST_CASE("device nodes: a stale uvm major (LXC config from an older driver)", "[probes][device_nodes]") {
  Capture c = h200_like();
  add_node(c, "/dev/nvidia-uvm", char_node(509, 0));
  add_node(c, "/dev/nvidia-uvm-tools", char_node(509, 1));
  FactSet facts = run(c);
  CHECK(facts.get_string("dev.uvm.state"_fact) == "wrong-major");
  CHECK(facts.get_string("dev.uvm_tools.state"_fact) == "wrong-major");
  CHECK(facts.get_int("dev.uvm.major"_fact) == 509);
  CHECK(facts.get_int("proc.devices.uvm_major"_fact) == 238);
}

TEST_CASE("device nodes: EPERM from the device cgroup", "[probes][device_nodes]") {
  Capture c = h200_like();
  add_node(c, "/dev/nvidiactl", char_node(195, 255), EPERM);
  add_node(c, "/dev/nvidia-uvm", char_node(238, 0), EPERM);
  add_node(c, "/dev/nvidia0", char_node(195, 0), EPERM);
  FactSet facts = run(c);
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "eperm");
  CHECK(facts.get_string("dev.uvm.state"_fact) == "eperm");
  CHECK(facts.get_string("dev.uvm_tools.state"_fact) == "ok");
  CHECK(list_of(facts, "dev.eperm_nodes"_fact) ==
        Strings{"/dev/nvidiactl 195:255", "/dev/nvidia-uvm 238:0", "/dev/nvidia0 195:0"});
  CHECK(list_of(facts, "dev.gpu_nodes_denied"_fact) == Strings{"/dev/nvidia0 EPERM"});
}

TEST_CASE("device nodes: GPU nodes this process can open (dev.gpu_nodes_usable)", "[probes][device_nodes]") {
  CHECK(run(h200_like()).get_int("dev.gpu_nodes_usable"_fact) == 1);

  // The host's /dev bind-mounted into a CDI container given GPU 0 of two: /proc/driver/nvidia/gpus
  // lists both, the device cgroup refuses the other GPU's node. One GPU is still reachable.
  Capture two = h200_like();
  std::string second(k_information);
  second.replace(second.find("Device Minor: \t 0"), std::string_view("Device Minor: \t 0").size(), "Device Minor: \t 1");
  two.paths["/proc/driver/nvidia/gpus/0000:00:07.0/information"].read = second;
  add_node(two, "/dev/nvidia1", char_node(195, 1), EPERM);
  FactSet facts = run(two);
  CHECK(facts.get_int("dev.gpu_count"_fact) == 2);
  CHECK(list_of(facts, "dev.eperm_nodes"_fact) == Strings{"/dev/nvidia1 195:1"});
  CHECK(facts.get_int("dev.gpu_nodes_usable"_fact) == 1);

  // Both refused: no GPU is reachable.
  add_node(two, "/dev/nvidia0", char_node(195, 0), EPERM);
  CHECK(run(two).get_int("dev.gpu_nodes_usable"_fact) == 0);

  // A missing node or a wrong one is not usable either.
  Capture missing = h200_like();
  missing.paths.erase("/dev/nvidia0");
  CHECK(run(missing).get_int("dev.gpu_nodes_usable"_fact) == 0);

  // No module: no GPU, none usable; an unreadable GPU list: unknown.
  Capture none;
  none.identity = gd::Identity{1000, 1000, {}};
  none.paths["/proc/devices"].read = std::string("Character devices:\n  1 mem\n");
  none.paths["/dev/null"].stat = char_node(1, 3);
  CHECK(run(none).get_int("dev.gpu_nodes_usable"_fact) == 0);
  Capture unreadable = h200_like();
  unreadable.paths["/proc/driver/nvidia/gpus"].list = std::unexpected(gd::IoError{EACCES});
  CHECK(state_of(run(unreadable), "dev.gpu_nodes_usable"_fact) == FactState::unknown);
}

TEST_CASE("device nodes: EACCES for a user outside the node's group", "[probes][device_nodes]") {
  Capture c = h200_like(1000);
  c.paths["/etc/group"].read = std::string("root:x:0:\nvideo:x:44:\n");
  add_node(c, "/dev/nvidia0", char_node(195, 0, 0660, 44), EACCES);
  add_node(c, "/dev/nvidiactl", char_node(195, 255, 0660, 44), EACCES);
  FactSet facts = run(c);
  // As non-root this is a finding about the node's mode, not "needs root".
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "eacces");
  CHECK(list_of(facts, "dev.eacces_nodes"_fact) ==
        Strings{"/dev/nvidiactl 0660 0:44 (group video): the mode denies uid 1000",
                "/dev/nvidia0 0660 0:44 (group video): the mode denies uid 1000"});
  CHECK(list_of(facts, "dev.gpu_nodes_denied"_fact) == Strings{"/dev/nvidia0 EACCES"});

  // Mode allows, open still refused: an LSM.
  Capture lsm = h200_like(1000);
  add_node(lsm, "/dev/nvidiactl", char_node(195, 255), EACCES);
  FactSet lsm_facts = run(lsm);
  Strings eacces = list_of(lsm_facts, "dev.eacces_nodes"_fact);
  REQUIRE(eacces.size() == 1);
  CHECK(eacces[0] == "/dev/nvidiactl 0666 0:0: the mode allows uid 1000: an LSM (SELinux, AppArmor) or an ACL refused it");
}

TEST_CASE("device nodes: missing and invalid GPU nodes", "[probes][device_nodes]") {
  Capture c = h200_like();
  c.paths.erase("/dev/nvidia0");
  FileStat regular;
  regular.kind = FileKind::regular;
  regular.mode = 0644;
  c.paths["/dev/nvidiactl"].stat = regular;
  FactSet facts = run(c);
  CHECK(list_of(facts, "dev.gpu_nodes_missing"_fact) == Strings{"/dev/nvidia0"});
  CHECK(list_of(facts, "dev.gpu_nodes"_fact).empty());
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "not-char");
  CHECK(state_of(facts, "dev.nvidiactl.device"_fact) == FactState::absent);

  Capture wrong = h200_like();
  add_node(wrong, "/dev/nvidia0", char_node(1, 3));
  CHECK(list_of(run(wrong), "dev.gpu_nodes_invalid"_fact) == Strings{"/dev/nvidia0 wrong-major 1:3"});
}

TEST_CASE("device nodes: the nvidia_uvm module is not loaded", "[probes][device_nodes]") {
  Capture c = h200_like();
  c.paths["/proc/devices"].read = std::string("Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n\nBlock devices:\n");
  c.paths.erase("/dev/nvidia-uvm");
  c.paths.erase("/dev/nvidia-uvm-tools");
  FactSet facts = run(c);
  CHECK(state_of(facts, "proc.devices.uvm_major"_fact) == FactState::absent);
  CHECK(facts.get_string("dev.uvm.state"_fact) == "missing");
  CHECK(state_of(facts, "dev.uvm.major"_fact) == FactState::absent);

  // A leftover node with no driver behind its number: the open test decides (ENXIO).
  Capture leftover = h200_like();
  leftover.paths["/proc/devices"].read = std::string("Character devices:\n195 nvidia\n195 nvidiactl\n");
  add_node(leftover, "/dev/nvidia-uvm", char_node(238, 0), ENXIO);
  CHECK(run(leftover).get_string("dev.uvm.state"_fact) == "enxio");
}

TEST_CASE("device nodes: no NVIDIA module at all", "[probes][device_nodes]") {
  Capture c;
  c.identity = gd::Identity{1000, 1000, {}};
  c.paths["/proc/devices"].read = std::string("Character devices:\n  1 mem\n\nBlock devices:\n");
  c.paths["/dev/null"].stat = char_node(1, 3);
  FactSet facts = run(c);
  CHECK(state_of(facts, "proc.devices.nvidia_major"_fact) == FactState::absent);
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "missing");
  CHECK(state_of(facts, "dev.gpu_count"_fact) == FactState::absent);
  CHECK(list_of(facts, "dev.gpu_nodes_missing"_fact).empty());
  CHECK(facts.get_bool("dev.nvidia_nodes_present"_fact) == false);
  CHECK(state_of(facts, "dev.caps_nodes"_fact) == FactState::absent);
}

TEST_CASE("device nodes: unreadable /proc/devices and /proc/driver/nvidia/gpus", "[probes][device_nodes]") {
  Capture c = h200_like(1000);
  c.paths["/proc/devices"].read = std::unexpected(gd::IoError{EACCES});
  c.paths["/proc/driver/nvidia/gpus"].list = std::unexpected(gd::IoError{EACCES});
  FactSet facts = run(c);
  const gd::Fact* major = facts.find("proc.devices.uvm_major"_fact);
  REQUIRE(major);
  CHECK(major->state == FactState::unknown);
  CHECK(major->reason.starts_with("needs root"));
  // Without /proc/devices the fixed 195 still judges nvidiactl; uvm is judged by its open.
  CHECK(facts.get_string("dev.nvidiactl.state"_fact) == "ok");
  CHECK(facts.get_string("dev.uvm.state"_fact) == "ok");
  CHECK(state_of(facts, "dev.gpu_count"_fact) == FactState::unknown);
  CHECK(state_of(facts, "dev.gpu_nodes_missing"_fact) == FactState::unknown);
}

TEST_CASE("device nodes: /dev/char links and /dev/dxg", "[probes][device_nodes]") {
  Capture c = h200_like();
  c.paths["/dev/char/195:255"].link = std::string("../nvidiactl");
  c.paths["/dev/char/195:0"].link = std::string("../nvidia0");
  FactSet facts = run(c);
  // udev made links for nvidiactl and nvidia0 only (nvidia-container-toolkit#48).
  CHECK(list_of(facts, "dev.char_links_missing"_fact) == Strings{"238:0 (/dev/nvidia-uvm)", "238:1 (/dev/nvidia-uvm-tools)"});

  Capture wsl;
  wsl.paths["/dev/dxg"].stat = char_node(10, 63);
  FactSet wsl_facts = run(wsl);
  CHECK(wsl_facts.get_bool("dev.dxg.present"_fact) == true);
  CHECK(wsl_facts.get_bool("dev.nvidia_nodes_present"_fact) == false);
}

TEST_CASE("device nodes: a capture or root without /dev", "[probes][device_nodes]") {
  // Captures made before this probe existed recorded only /proc/driver/nvidia/version; an
  // image's filesystem has no device nodes either. Nothing there is "missing".
  Capture c;
  c.paths["/proc/driver/nvidia/version"].read =
      std::string("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n");
  FactSet facts = run(c);
  CHECK(state_of(facts, "dev.nvidiactl.state"_fact) == FactState::unknown);
  CHECK(facts.find("dev.nvidiactl.state"_fact)->reason == "no /dev in this root or capture");
  CHECK(state_of(facts, "dev.gpu_nodes_missing"_fact) == FactState::unknown);
  CHECK(state_of(facts, "dev.nvidia_nodes_present"_fact) == FactState::unknown);
  CHECK(state_of(facts, "dev.dxg.present"_fact) == FactState::unknown);
  // /proc/devices is judged on its own: not captured either, so unknown, not absent.
  CHECK(state_of(facts, "proc.devices.uvm_major"_fact) == FactState::unknown);
}

}  // namespace GD_UNITY_ID
