// The limits layer's overview line (report/areas/limits_line.cpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/all_layers.hpp"
#include "report/areas/area_support.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::AreaStatus;
using gd::FactSet;

namespace {

const gd::Layer& limits_layer() { return gd::layer_named("limits"); }

/// An 8-GPU Docker container: 64 MiB /dev/shm, memlock unlimited, two HCAs without CAP_IPC_LOCK.
FactSet eight_gpu_container() {
  FactSet facts;
  facts.set("limits.gpu_count", std::int64_t{8});
  facts.set("limits.shm.fstype", std::string("tmpfs"));
  facts.set("limits.shm.size_bytes", std::int64_t{64} * 1024 * 1024);
  facts.set_absent("limits.memlock.soft_bytes", "/proc/self/limits", "unlimited");
  facts.set("limits.rdma.device_count", std::int64_t{2});
  facts.set("limits.rdma.uverbs_count", std::int64_t{2});
  facts.set("limits.cap_ipc_lock", false);
  return facts;
}

}  // namespace

TEST_CASE("limits line: what the process has, in the units users set them in", "[report][areas][limits]") {
  gd::AreaLine line = gd::areas::limits_line(limits_layer(), eight_gpu_container(), {});
  CHECK(line.summary == "8 GPUs, /dev/shm 64 MiB, memlock unlimited, 2 RDMA devices (2 uverbs), no CAP_IPC_LOCK");
  CHECK(line.status == AreaStatus::ok);

  // A finding of the layer marks the line.
  gd::Finding finding;
  finding.id = "limits.shm-too-small-for-nccl";
  finding.area = "limits";
  finding.severity = gd::Severity::warning;
  CHECK(gd::areas::limits_line(limits_layer(), eight_gpu_container(), {finding}).status == AreaStatus::warning);

  // The real H200: half of RAM would be 125.9 GiB; no RDMA; a finite limit.
  FactSet h200;
  h200.set("limits.gpu_count", std::int64_t{1});
  h200.set("limits.shm.fstype", std::string("tmpfs"));
  h200.set("limits.shm.size_bytes", std::int64_t{131981020} * 1024);
  h200.set("limits.memlock.soft_bytes", std::int64_t{8388608});
  h200.set("limits.rdma.device_count", std::int64_t{0});
  CHECK(gd::areas::limits_line(limits_layer(), h200, {}).summary == "1 GPU, /dev/shm 125.9 GiB, memlock 8 MiB, no RDMA devices");
}

TEST_CASE("limits line: nothing mounted, unknown, and left out by --scope node", "[report][areas][limits]") {
  FactSet facts;
  facts.set_absent("limits.shm.fstype", "/proc/self/mountinfo", "nothing is mounted on /dev/shm");
  facts.set_unknown("limits.memlock.soft_bytes", "no /proc/self/limits in this root or capture");
  facts.set("limits.rdma.device_count", std::int64_t{0});
  CHECK(gd::areas::limits_line(limits_layer(), facts, {}).summary == "nothing mounted on /dev/shm, memlock unknown, no RDMA devices");

  FactSet unknown;
  for (std::string_view name : {"limits.shm.fstype", "limits.memlock.soft_bytes", "limits.rdma.device_count"}) {
    unknown.set_unknown(name, "EACCES");
  }
  gd::AreaLine line = gd::areas::limits_line(limits_layer(), unknown, {});
  CHECK(line.status == AreaStatus::unknown);
  CHECK(line.summary == "/dev/shm unknown, memlock unknown, RDMA devices unknown");

  FactSet node_scope;
  node_scope.set_unknown("limits.shm.size_bytes", "not checked (--scope node)", "scope:node");
  CHECK(gd::areas::limits_line(limits_layer(), node_scope, {}).status == AreaStatus::skipped);
}

}  // namespace GD_UNITY_ID
