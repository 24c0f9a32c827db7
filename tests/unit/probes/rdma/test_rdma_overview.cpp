// The RDMA layer's overview line (probes/rdma/rdma_overview.cpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/all_layers.hpp"
#include "core/fact_key.hpp"
#include "probes/rdma/rdma_overview.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::AreaStatus;
using gd::FactSet;
using namespace gd::fact_literals;

namespace {

const gd::Layer& rdma_layer() { return gd::layer_named("rdma"); }

using Lines = std::vector<std::string>;

/// What the probe gives on an 8-GPU, 8-HCA NDR node with nvidia_peermem, on the host.
FactSet healthy_node() {
  FactSet facts;
  facts.set("rdma.hca_count"_fact, std::int64_t{8});
  facts.set("rdma.port_count"_fact, std::int64_t{8});
  facts.set("rdma.active_port_count"_fact, std::int64_t{8});
  facts.set("rdma.down_port_count"_fact, std::int64_t{0});
  facts.set("rdma.active_link_layers"_fact, Lines{"InfiniBand"});
  facts.set("rdma.active_rates"_fact, Lines{"400 Gb/sec (4X NDR)"});
  facts.set("rdma.gpudirect.provider"_fact, std::string("nvidia_peermem"));
  facts.set("container.in_container"_fact, false);
  facts.set("limits.rdma.uverbs_count"_fact, std::int64_t{8});
  return facts;
}

}  // namespace

TEST_CASE("rdma line: a healthy node", "[report][areas][rdma]") {
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), healthy_node(), {});
  CHECK(line.summary == "8 HCAs active (InfiniBand 400 Gb/sec), GPUDirect via nvidia_peermem");
  CHECK(line.status == AreaStatus::ok);
}

TEST_CASE("rdma line: no HCAs", "[report][areas][rdma]") {
  FactSet facts;
  facts.set("rdma.hca_count"_fact, std::int64_t{0});
  facts.set_absent("rdma.gpudirect.provider"_fact);
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), facts, {});
  CHECK(line.summary == "none");
  CHECK(line.status == AreaStatus::ok);
}

TEST_CASE("rdma line: a port down", "[report][areas][rdma]") {
  FactSet facts = healthy_node();
  facts.set("rdma.hca_count"_fact, std::int64_t{2});
  facts.set("rdma.port_count"_fact, std::int64_t{2});
  facts.set("rdma.active_port_count"_fact, std::int64_t{1});
  facts.set("rdma.down_port_count"_fact, std::int64_t{1});
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), facts, {});
  CHECK(line.summary == "2 HCAs, 1 port down, GPUDirect via nvidia_peermem");
}

TEST_CASE("rdma line: RoCE through dma-buf, at two rates", "[report][areas][rdma]") {
  FactSet facts = healthy_node();
  facts.set("rdma.active_link_layers"_fact, Lines{"Ethernet"});
  facts.set("rdma.active_rates"_fact, Lines{"200 Gb/sec (4X HDR)", "100 Gb/sec (4X EDR)", "200 Gb/sec (2X NDR)"});
  facts.set("rdma.gpudirect.provider"_fact, std::string("dma-buf"));
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), facts, {});
  CHECK(line.summary == "8 HCAs active (RoCE 200 Gb/sec, 100 Gb/sec), GPUDirect via dma-buf");
}

TEST_CASE("rdma line: AWS Elastic Fabric Adapters", "[report][areas][rdma]") {
  FactSet facts = healthy_node();
  facts.set("rdma.hca_count"_fact, std::int64_t{32});
  facts.set("rdma.active_port_count"_fact, std::int64_t{32});
  facts.set("rdma.efa_device_count"_fact, std::int64_t{32});
  facts.set("rdma.active_link_layers"_fact, Lines{"Unknown"});
  facts.set("rdma.active_rates"_fact, Lines{"100 Gb/sec (4X EDR)"});
  facts.set("rdma.gpudirect.provider"_fact, std::string("efa_nv_peermem"));
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), facts, {});
  CHECK(line.summary == "32 HCAs active (EFA 100 Gb/sec), GPUDirect via efa_nv_peermem");
}

TEST_CASE("rdma line: a container not given the verbs devices", "[report][areas][rdma]") {
  FactSet facts = healthy_node();
  facts.set("container.in_container"_fact, true);
  facts.set("limits.rdma.uverbs_count"_fact, std::int64_t{0});
  facts.set_absent("rdma.gpudirect.provider"_fact);
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), facts, {});
  CHECK(line.summary ==
        "8 HCAs active (InfiniBand 400 Gb/sec), no /dev/infiniband/uverbs* in this container, no GPUDirect RDMA provider");
}

TEST_CASE("rdma line: HCAs unreadable", "[report][areas][rdma]") {
  FactSet facts;
  facts.set_unknown("rdma.hca_count"_fact, "needs root (EACCES (Permission denied))", "/sys/class/infiniband");
  gd::AreaLine line = gd::areas::rdma_overview_line(rdma_layer(), facts, {});
  CHECK(line.summary == "unknown: needs root (EACCES (Permission denied))");
  CHECK(line.status == AreaStatus::unknown);
}

}  // namespace GD_UNITY_ID
