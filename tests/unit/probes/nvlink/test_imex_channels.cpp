// IMEX channel nodes in /dev/nvidia-caps-imex-channels, as NVIDIA's IMEX guide ("IMEX Channels")
// shows them: `crw-rw-rw- 1 root root 234, 0 ... channel0`, the major taken from /proc/devices'
// "234 nvidia-caps-imex-channels" line (dynamic: it differs between nodes).
#include "probes/nvlink/imex_channels.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;
using gd::FileKind;
using gd::FileStat;
using Names = gd::IoResult<std::vector<std::string>>;

namespace {

constexpr std::string_view k_folder = "/dev/nvidia-caps-imex-channels";

FileStat channel_node(std::uint32_t minor) {
  FileStat st;
  st.kind = FileKind::char_device;
  st.major = 234;
  st.minor = minor;
  st.mode = 0666;
  return st;
}

FileStat folder_stat() {
  FileStat st;
  st.kind = FileKind::directory;
  st.mode = 0755;
  return st;
}

FactSet run(Capture capture, FactSet facts = {}) {
  gd::ReplayHost host(std::move(capture));
  gd::probe_imex_channels(host, gd::ProbeOptions{}, facts);
  return facts;
}

/// /proc/driver/nvidia/params as nv-procfs.c prints it (580: ImexChannelCount, CreateImexChannel0).
std::string params(int create_channel0) {
  return "ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\nImexChannelCount: 2048\nCreateImexChannel0: " +
         std::to_string(create_channel0) + "\nRegistryDwords: \"\"\n";
}

FactState state_of(const FactSet& facts, gd::FactName name) {
  const gd::Fact* fact = facts.find(name);
  REQUIRE(fact);
  return fact->state;
}

std::vector<std::string> channels_of(const FactSet& facts) {
  const gd::Fact* fact = facts.find("nvlink.imex.channels"_fact);
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<std::vector<std::string>>(fact->value);
}

}  // namespace

TEST_CASE("imex channels: the channel number of a node's name", "[probes][nvlink][imex]") {
  CHECK(gd::imex_channel_number("channel0") == 0);
  CHECK(gd::imex_channel_number("channel12") == 12);
  CHECK(gd::imex_channel_number("channel2047") == 2047);
  CHECK_FALSE(gd::imex_channel_number("channel"));
  CHECK_FALSE(gd::imex_channel_number("channelX"));
  CHECK_FALSE(gd::imex_channel_number("channel1a"));
  CHECK_FALSE(gd::imex_channel_number("channel-1"));
  CHECK_FALSE(gd::imex_channel_number("README"));
  CHECK_FALSE(gd::imex_channel_number("channel99999999999"));  // too long to be a minor
}

TEST_CASE("imex channels: the guide's default channel0", "[probes][nvlink][imex]") {
  Capture c;
  c.paths[std::string(k_folder)].stat = folder_stat();
  c.paths[std::string(k_folder) + "/channel0"].stat = channel_node(0);
  FactSet facts = run(c);
  CHECK(channels_of(facts) == std::vector<std::string>{"channel0"});
  CHECK(facts.get_int("nvlink.imex.channel_count"_fact) == 1);
}

TEST_CASE("imex channels: several, by number; stray entries left out", "[probes][nvlink][imex]") {
  Capture c;
  c.paths[std::string(k_folder)].stat = folder_stat();
  c.paths[std::string(k_folder)].list = Names(std::vector<std::string>{"channel10", "channel2", "notes.txt", "channel1", "channel3"});
  c.paths[std::string(k_folder) + "/channel10"].stat = channel_node(10);
  c.paths[std::string(k_folder) + "/channel2"].stat = channel_node(2);
  c.paths[std::string(k_folder) + "/channel1"].stat = channel_node(1);
  FileStat regular;  // a script that wrote a file where mknod should have made a node
  regular.kind = FileKind::regular;
  regular.mode = 0644;
  c.paths[std::string(k_folder) + "/channel3"].stat = regular;
  c.paths[std::string(k_folder) + "/notes.txt"].stat = regular;
  FactSet facts = run(c);
  CHECK(channels_of(facts) == std::vector<std::string>{"channel1", "channel2", "channel10"});
  CHECK(facts.get_int("nvlink.imex.channel_count"_fact) == 3);
}

TEST_CASE("imex channels: the folder made but no node in it (mkdir without mknod)", "[probes][nvlink][imex]") {
  Capture c;
  c.paths[std::string(k_folder)].stat = folder_stat();
  c.paths[std::string(k_folder)].list = Names(std::vector<std::string>{});
  FactSet facts = run(c);
  CHECK(channels_of(facts).empty());
  CHECK(facts.get_int("nvlink.imex.channel_count"_fact) == 0);
}

TEST_CASE("imex channels: no folder (every host but a set-up multi-node NVLink node)", "[probes][nvlink][imex]") {
  Capture c;
  c.paths["/dev/nvidiactl"].stat = channel_node(255);
  FactSet facts = run(c);
  CHECK(state_of(facts, "nvlink.imex.channels"_fact) == FactState::absent);
  CHECK(facts.get_int("nvlink.imex.channel_count"_fact) == 0);
}

TEST_CASE("imex channels: a folder that cannot be read is unknown, not empty", "[probes][nvlink][imex]") {
  Capture c;
  c.paths[std::string(k_folder)].list = Names(std::unexpected(gd::IoError{EACCES}));
  FactSet facts = run(c);
  CHECK(state_of(facts, "nvlink.imex.channels"_fact) == FactState::unknown);
  CHECK(state_of(facts, "nvlink.imex.channel_count"_fact) == FactState::unknown);
}

TEST_CASE("imex channels: NVreg_CreateImexChannel0 from /proc/driver/nvidia/params", "[probes][nvlink][imex]") {
  Capture on;
  on.paths["/proc/driver/nvidia/params"].read = params(1);
  CHECK(run(on).get_bool("nvlink.imex.create_channel0"_fact) == true);
  Capture off;
  off.paths["/proc/driver/nvidia/params"].read = params(0);
  CHECK(run(off).get_bool("nvlink.imex.create_channel0"_fact) == false);
  // A driver before the parameter, and no driver at all.
  Capture old;
  old.paths["/proc/driver/nvidia/params"].read = std::string("ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\n");
  CHECK(state_of(run(old), "nvlink.imex.create_channel0"_fact) == FactState::absent);
  CHECK(state_of(run(Capture{}), "nvlink.imex.create_channel0"_fact) == FactState::absent);
  Capture denied;
  denied.paths["/proc/driver/nvidia/params"].read = std::unexpected(gd::IoError{EACCES});
  CHECK(state_of(run(denied), "nvlink.imex.create_channel0"_fact) == FactState::unknown);
}

TEST_CASE("imex channels: an nvidia-imex of a Kubernetes pod (DRA ComputeDomain)", "[probes][nvlink][imex]") {
  // /proc/PID/cgroup of a containerd pod under systemd's cgroup v2, and of nvidia-imex.service.
  const std::string pod = "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f1c2b7e.slice/cri-containerd-8c1d2e.scope\n";
  const std::string service = "0::/system.slice/nvidia-imex.service\n";
  CHECK(gd::cgroup_in_kubernetes_pod(pod));
  CHECK(gd::cgroup_in_kubernetes_pod("11:pids:/kubepods/besteffort/pod3f1c2b7e/8c1d2e\n"));  // cgroup v1
  CHECK_FALSE(gd::cgroup_in_kubernetes_pod(service));

  auto node = [](const std::string& cgroup) {
    Capture c;
    c.paths["/proc"].list = std::vector<std::string>{"1", "1312", "self", "version"};
    c.paths["/proc/1/comm"].read = std::string("systemd\n");
    c.paths["/proc/1312/comm"].read = std::string("nvidia-imex\n");
    c.paths["/proc/1312/cgroup"].read = cgroup;
    return c;
  };
  FactSet running;
  running.set("service.imex.running"_fact, true);
  CHECK(run(node(pod), running).get_bool("nvlink.imex.daemon_in_pod"_fact) == true);
  CHECK(run(node(service), running).get_bool("nvlink.imex.daemon_in_pod"_fact) == false);
  // Not read where the daemon is not seen running.
  FactSet stopped;
  stopped.set("service.imex.running"_fact, false);
  CHECK(state_of(run(node(pod), stopped), "nvlink.imex.daemon_in_pod"_fact) == FactState::absent);
}

}  // namespace GD_UNITY_ID
