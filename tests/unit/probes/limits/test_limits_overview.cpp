// The limits layer's overview line (probes/limits/limits_overview.cpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/all_layers.hpp"
#include "core/fact_key.hpp"
#include "probes/limits/limits_overview.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::AreaStatus;
using gd::FactSet;
using namespace gd::fact_literals;

namespace {

const gd::Layer& limits_layer() { return gd::layer_named("limits"); }

/// An 8-GPU Docker container: 64 MiB /dev/shm, memlock unlimited, two HCAs without CAP_IPC_LOCK.
FactSet eight_gpu_container() {
  FactSet facts;
  facts.set("limits.gpu_count"_fact, std::int64_t{8});
  facts.set("limits.shm.fstype"_fact, std::string("tmpfs"));
  facts.set("limits.shm.size_bytes"_fact, std::int64_t{64} * 1024 * 1024);
  facts.set_absent("limits.memlock.soft_bytes"_fact, "/proc/self/limits", "unlimited");
  facts.set("limits.rdma.device_count"_fact, std::int64_t{2});
  facts.set("limits.rdma.uverbs_count"_fact, std::int64_t{2});
  facts.set("limits.cap_ipc_lock"_fact, false);
  return facts;
}

}  // namespace

TEST_CASE("limits line: what the process has, in the units users set them in", "[report][areas][limits]") {
  gd::AreaLine line = gd::areas::limits_overview_line(limits_layer(), eight_gpu_container(), {});
  CHECK(line.summary == "8 GPUs, /dev/shm 64 MiB, memlock unlimited, 2 RDMA devices (2 uverbs), no CAP_IPC_LOCK");
  CHECK(line.status == AreaStatus::ok);

  // A finding of the layer marks the line.
  gd::Finding finding;
  finding.id = "limits.shm-too-small-for-nccl";
  finding.area = "limits";
  finding.severity = gd::Severity::warning;
  CHECK(gd::areas::limits_overview_line(limits_layer(), eight_gpu_container(), {finding}).status == AreaStatus::warning);

  // The real H200: half of RAM would be 125.9 GiB; no RDMA; a finite limit.
  FactSet h200;
  h200.set("limits.gpu_count"_fact, std::int64_t{1});
  h200.set("limits.shm.fstype"_fact, std::string("tmpfs"));
  h200.set("limits.shm.size_bytes"_fact, std::int64_t{131981020} * 1024);
  h200.set("limits.memlock.soft_bytes"_fact, std::int64_t{8388608});
  h200.set("limits.rdma.device_count"_fact, std::int64_t{0});
  CHECK(gd::areas::limits_overview_line(limits_layer(), h200, {}).summary == "1 GPU, /dev/shm 125.9 GiB, memlock 8 MiB, no RDMA devices");
}

TEST_CASE("limits line: nothing mounted, unknown, and left out by --scope node", "[report][areas][limits]") {
  FactSet facts;
  facts.set_absent("limits.shm.fstype"_fact, "/proc/self/mountinfo", "nothing is mounted on /dev/shm");
  facts.set_unknown("limits.memlock.soft_bytes"_fact, "no /proc/self/limits in this root or capture");
  facts.set("limits.rdma.device_count"_fact, std::int64_t{0});
  CHECK(gd::areas::limits_overview_line(limits_layer(), facts, {}).summary == "nothing mounted on /dev/shm, memlock unknown, no RDMA devices");

  FactSet unknown;
  for (gd::FactName name : {"limits.shm.fstype"_fact, "limits.memlock.soft_bytes"_fact, "limits.rdma.device_count"_fact}) {
    unknown.set_unknown(name, "EACCES");
  }
  gd::AreaLine line = gd::areas::limits_overview_line(limits_layer(), unknown, {});
  CHECK(line.status == AreaStatus::unknown);
  CHECK(line.summary == "/dev/shm unknown, memlock unknown, RDMA devices unknown");

  FactSet node_scope;
  node_scope.set_unknown("limits.shm.size_bytes"_fact, "not checked (--scope node)", "scope:node");
  CHECK(gd::areas::limits_overview_line(limits_layer(), node_scope, {}).status == AreaStatus::skipped);
}

}  // namespace GD_UNITY_ID
