#include "probes/limits/collective_limits.hpp"

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"

#include <cerrno>
#include <string>
#include <vector>

#include "sys/replay_host.hpp"
#include "fact_access.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Capture;
using gd::FactSet;
using gd::FactState;

namespace {

constexpr std::string_view k_docker_shm_line = "620 614 0:72 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64\n";
constexpr std::string_view k_limits_header = "Limit                     Soft Limit           Hard Limit           Units     \n";

/// An 8-GPU container started with plain docker run: 64 MiB /dev/shm, memlock 8 MiB, Docker's
/// default capabilities, two HCAs given to it.
Capture docker_eight_gpus() {
  Capture c;
  c.paths["/proc/self/mountinfo"].read = "612 543 0:71 / / rw,relatime - overlay overlay rw\n" + std::string(k_docker_shm_line);
  c.paths["/proc/self/limits"].read =
      std::string(k_limits_header) + "Max locked memory         8388608              8388608              bytes     \n";
  c.paths["/proc/self/status"].read = std::string("Name:\tgpudoctor\nCapEff:\t00000000a80425fb\n");
  c.paths["/sys/class/infiniband"].list = std::vector<std::string>{"mlx5_0", "mlx5_1"};
  c.paths["/dev/infiniband"].list = std::vector<std::string>{"rdma_cm", "uverbs0", "uverbs1"};
  return c;
}

FactSet run(Capture capture, std::vector<std::string> gpu_nodes) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  facts.set("dev.gpu_nodes"_fact, std::move(gpu_nodes), "/proc/driver/nvidia/gpus");
  gd::probe_collective_limits(host, gd::ProbeOptions{}, facts);
  return facts;
}

std::vector<std::string> eight_nodes() {
  std::vector<std::string> nodes;
  for (int i = 0; i < 8; ++i) nodes.push_back("/dev/nvidia" + std::to_string(i) + " 195:" + std::to_string(i));
  return nodes;
}

FactState state(const FactSet& facts, gd::FactName name) { return gd::test::state_of(facts, name); }

}  // namespace

TEST_CASE("collective limits: a Docker container with 8 GPUs and two HCAs", "[probes][limits]") {
  FactSet facts = run(docker_eight_gpus(), eight_nodes());
  CHECK(facts.get_string("limits.shm.fstype"_fact) == "tmpfs");
  CHECK(facts.get_int("limits.shm.size_bytes"_fact) == 64 * 1024 * 1024);
  CHECK(facts.get_int("limits.memlock.soft_bytes"_fact) == 8388608);
  CHECK(facts.get_int("limits.memlock.hard_bytes"_fact) == 8388608);
  CHECK(facts.get_bool("limits.cap_ipc_lock"_fact) == false);
  CHECK(facts.get_int("limits.rdma.device_count"_fact) == 2);
  CHECK(facts.get_int("limits.rdma.uverbs_count"_fact) == 2);
  CHECK(std::get<std::vector<std::string>>(facts.find("limits.rdma.uverbs"_fact)->value) ==
        std::vector<std::string>{"/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1"});
  CHECK(facts.get_int("limits.gpu_count"_fact) == 8);
}

TEST_CASE("collective limits: unlimited, defaults and nothing there", "[probes][limits]") {
  Capture c = docker_eight_gpus();
  // --ulimit memlock=-1; --shm-size left to the kernel's default (no size=): half of MemTotal.
  c.paths["/proc/self/limits"].read =
      std::string(k_limits_header) + "Max locked memory         unlimited            unlimited            bytes     \n";
  c.paths["/proc/self/mountinfo"].read = std::string("25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,inode64\n");
  c.paths["/proc/meminfo"].read = std::string("MemTotal:       24683784 kB\n");
  c.paths.erase("/sys/class/infiniband");  // no RDMA driver: no class folder at all
  c.paths.erase("/dev/infiniband");
  FactSet facts = run(c, {"/dev/nvidia0 195:0"});
  CHECK(facts.get_int("limits.shm.size_bytes"_fact) == 24683784ll * 1024 / 2);
  CHECK(state(facts, "limits.memlock.soft_bytes"_fact) == FactState::absent);  // unlimited
  CHECK(state(facts, "limits.memlock.hard_bytes"_fact) == FactState::absent);
  CHECK(facts.get_int("limits.rdma.device_count"_fact) == 0);
  CHECK(facts.get_int("limits.rdma.uverbs_count"_fact) == 0);
  CHECK(facts.get_int("limits.gpu_count"_fact) == 1);

  // Nothing mounted on /dev/shm; a size=0 tmpfs (no limit).
  c.paths["/proc/self/mountinfo"].read = std::string("612 543 0:71 / / rw,relatime - overlay overlay rw\n");
  facts = run(c, {});
  CHECK(state(facts, "limits.shm.fstype"_fact) == FactState::absent);
  CHECK(state(facts, "limits.shm.size_bytes"_fact) == FactState::absent);
  CHECK(facts.get_int("limits.gpu_count"_fact) == 0);
  c.paths["/proc/self/mountinfo"].read = std::string("25 24 0:23 / /dev/shm rw - tmpfs tmpfs rw,size=0k\n");
  facts = run(c, {});
  CHECK(facts.get_string("limits.shm.fstype"_fact) == "tmpfs");
  CHECK(state(facts, "limits.shm.size_bytes"_fact) == FactState::absent);
}

TEST_CASE("collective limits: what cannot be read is unknown", "[probes][limits]") {
  // A --root tree or an older capture: no /proc/self files; a tmpfs without size= and no meminfo.
  Capture c;
  c.paths["/proc/self/mountinfo"].read = std::string("25 24 0:23 / /dev/shm rw - tmpfs tmpfs rw\n");
  c.paths["/sys/class/infiniband"].list = std::unexpected(gd::IoError{EACCES});
  gd::ReplayHost host(std::move(c));
  FactSet facts;
  facts.set_unknown("dev.gpu_nodes"_fact, "no /dev in this root or capture", "/dev");
  gd::probe_collective_limits(host, gd::ProbeOptions{}, facts);
  CHECK(state(facts, "limits.shm.size_bytes"_fact) == FactState::unknown);
  CHECK(facts.find("limits.shm.size_bytes"_fact)->reason.find("MemTotal unknown") != std::string::npos);
  CHECK(state(facts, "limits.memlock.soft_bytes"_fact) == FactState::unknown);
  CHECK(facts.find("limits.memlock.soft_bytes"_fact)->reason == "no /proc/self/limits in this root or capture");
  CHECK(state(facts, "limits.cap_ipc_lock"_fact) == FactState::unknown);
  CHECK(state(facts, "limits.rdma.device_count"_fact) == FactState::unknown);
  CHECK(facts.get_int("limits.rdma.uverbs_count"_fact) == 0);
  CHECK(state(facts, "limits.gpu_count"_fact) == FactState::unknown);
  // Without the device-node probe's fact at all.
  FactSet alone;
  gd::ReplayHost empty{Capture{}};
  gd::probe_collective_limits(empty, gd::ProbeOptions{}, alone);
  CHECK(state(alone, "limits.gpu_count"_fact) == FactState::unknown);
  CHECK(state(alone, "limits.shm.fstype"_fact) == FactState::unknown);
}

}  // namespace GD_UNITY_ID
