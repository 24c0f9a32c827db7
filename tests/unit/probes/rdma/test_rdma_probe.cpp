// The RDMA layer's probe (probes/rdma/rdma_probe) on sysfs trees in the kernel's formats
// (rdma_trees.hpp): a healthy 8-GPU InfiniBand node, a RoCE node, a port down, the GPUDirect
// providers, and hostile trees, where what cannot be read is named and never crashes the probe.

#include "probes/rdma/rdma_probe.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sys/replay_host.hpp"
#include "rdma_trees.hpp"
#include "fact_access.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using namespace gd::fact_literals;
using gd::Capture;
using gd::FactSet;
using gd::FactState;
using gd::test_rdma::GidSpec;
using gd::test_rdma::HcaSpec;
using gd::test_rdma::Node;
using gd::test_rdma::PortSpec;

namespace {

FactSet run(Node node) {
  gd::ReplayHost host(std::move(node.capture));
  FactSet facts = std::move(node.facts);
  gd::probe_rdma(host, gd::ProbeOptions{}, facts);
  return facts;
}

std::vector<std::string> list(const FactSet& facts, gd::FactName name) { return gd::test::list_of(facts, name); }

FactState state(const FactSet& facts, gd::FactName name) { return gd::test::state_of(facts, name); }

bool any_contains(const std::vector<std::string>& lines, std::string_view text) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

/// Two ConnectX-6 Dx RoCE ports (100 GbE) on one root complex, no GPU; the given NCCL_IB_GID_INDEX.
Node roce_node(std::optional<std::string> gid_index) {
  Node node;
  for (int i = 0; i < 2; ++i) {
    HcaSpec hca{.name = fmt::format("mlx5_{}", i),
                .root = "pci0000:00",
                .chain = {"0000:00:01.0", fmt::format("0000:0{}:00.0", i + 1)},
                .fw = "22.36.1010",
                .hca_type = "MT4125"};
    hca.ports = {PortSpec{.link_layer = "Ethernet", .rate = "100 Gb/sec (4X EDR)", .gids = gd::test_rdma::roce_gid_table()}};
    gd::test_rdma::add_hca(node.capture, hca);
  }
  node.facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{0});
  node.facts.set("kmod.nvidia.flavor"_fact, std::string("proprietary"));
  node.facts.set("host.kernel_release"_fact, std::string("5.15.0-122-generic"));
  if (gid_index) {
    node.facts.set("env.nccl_ib_gid_index"_fact, *gid_index);
  } else {
    node.facts.set_absent("env.nccl_ib_gid_index"_fact);
  }
  return node;
}

}  // namespace

TEST_CASE("rdma probe: a healthy 8-GPU InfiniBand node with nvidia_peermem", "[probes][rdma]") {
  FactSet facts = run(gd::test_rdma::hgx_infiniband_node());
  CHECK(facts.get_int("rdma.hca_count"_fact) == 8);
  CHECK(facts.get_int("rdma.port_count"_fact) == 8);
  CHECK(facts.get_int("rdma.active_port_count"_fact) == 8);
  CHECK(facts.get_int("rdma.ib_roce_active_port_count"_fact) == 8);
  CHECK(facts.get_int("rdma.efa_device_count"_fact) == 0);
  CHECK(facts.get_int("rdma.down_port_count"_fact) == 0);
  auto hcas = list(facts, "rdma.hcas"_fact);
  REQUIRE(hcas.size() == 8);
  CHECK(hcas[0] == "mlx5_0 port 1: ACTIVE LinkUp InfiniBand 400 Gb/sec (4X NDR), fw 28.39.1002");
  CHECK(list(facts, "rdma.active_link_layers"_fact) == std::vector<std::string>{"InfiniBand"});
  CHECK(list(facts, "rdma.active_rates"_fact) == std::vector<std::string>{"400 Gb/sec (4X NDR)"});
  CHECK(list(facts, "rdma.hca_drivers"_fact) == std::vector<std::string>{"mlx5_core"});
  CHECK(list(facts, "rdma.unreadable"_fact).empty());
  CHECK(list(facts, "rdma.roce_v2_gids"_fact).empty());  // InfiniBand ports have no RoCE GIDs

  CHECK(facts.get_bool("rdma.gpudirect.nvidia_peermem"_fact) == true);
  CHECK(facts.get_bool("rdma.gpudirect.nv_peer_mem"_fact) == false);
  CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "nvidia_peermem");
  CHECK(facts.get_bool("rdma.gpudirect.dmabuf_possible"_fact) == true);  // open module, 6.8, mlx5
  CHECK(state(facts, "rdma.nccl_gid_index_problem_count"_fact) == FactState::absent);

  auto affinity = list(facts, "rdma.gpu_nic_affinity"_fact);
  REQUIRE(affinity.size() == 8);
  CHECK(affinity[0] == "GPU 0000:18:00.0 <-> mlx5_0 (same PCIe switch)");
  CHECK(affinity[7] == "GPU 0000:cd:00.0 <-> mlx5_7 (same PCIe switch)");
}

TEST_CASE("rdma probe: GPUs whose NICs hang from other switches", "[probes][rdma]") {
  Node node = gd::test_rdma::hgx_infiniband_node();
  // Only the NICs of switches 0 (NUMA 0) and 4 (NUMA 1) remain.
  for (int i : {1, 2, 3, 5, 6, 7}) {
    std::string prefix = fmt::format("/sys/class/infiniband/mlx5_{}", i);
    std::erase_if(node.capture.paths, [&](const auto& entry) { return entry.first.starts_with(prefix); });
  }
  FactSet facts = run(std::move(node));
  CHECK(facts.get_int("rdma.hca_count"_fact) == 2);
  auto affinity = list(facts, "rdma.gpu_nic_affinity"_fact);
  REQUIRE(affinity.size() == 8);
  CHECK(affinity[0] == "GPU 0000:18:00.0 <-> mlx5_0 (same PCIe switch)");
  CHECK(affinity[1] == "GPU 0000:29:00.0 <-> mlx5_0 (same NUMA node)");
  CHECK(affinity[4] == "GPU 0000:9a:00.0 <-> mlx5_4 (same PCIe switch)");
  CHECK(affinity[5] == "GPU 0000:ab:00.0 <-> mlx5_4 (same NUMA node)");
}

TEST_CASE("rdma probe: one port down among active ones", "[probes][rdma]") {
  Node node = gd::test_rdma::hgx_infiniband_node();
  node.capture.paths["/sys/class/infiniband/mlx5_3/ports/1/state"].read = std::string("1: DOWN\n");
  node.capture.paths["/sys/class/infiniband/mlx5_3/ports/1/phys_state"].read = std::string("2: Polling\n");
  node.capture.paths["/sys/class/infiniband/mlx5_3/ports/1/rate"].read = std::string("10 Gb/sec (4X SDR)\n");
  FactSet facts = run(std::move(node));
  CHECK(facts.get_int("rdma.active_port_count"_fact) == 7);
  CHECK(facts.get_int("rdma.down_port_count"_fact) == 1);
  CHECK(list(facts, "rdma.down_ports"_fact) == std::vector<std::string>{"mlx5_3 port 1: DOWN Polling (InfiniBand)"});
  // The down port's rate is not an active rate.
  CHECK(list(facts, "rdma.active_rates"_fact) == std::vector<std::string>{"400 Gb/sec (4X NDR)"});
}

TEST_CASE("rdma probe: a port ACTIVE in the subnet but not LinkUp counts as down", "[probes][rdma]") {
  Node node = gd::test_rdma::hgx_infiniband_node();
  node.capture.paths["/sys/class/infiniband/mlx5_6/ports/1/phys_state"].read = std::string("6: LinkErrorRecovery\n");
  FactSet facts = run(std::move(node));
  CHECK(facts.get_int("rdma.down_port_count"_fact) == 1);
  CHECK(list(facts, "rdma.down_ports"_fact) == std::vector<std::string>{"mlx5_6 port 1: ACTIVE LinkErrorRecovery (InfiniBand)"});
}

TEST_CASE("rdma probe: a host without RDMA", "[probes][rdma]") {
  Node node;
  node.facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
  node.facts.set("kmod.nvidia.flavor"_fact, std::string("open"));
  node.facts.set("host.kernel_release"_fact, std::string("6.8.0-49-generic"));
  node.facts.set_absent("env.nccl_ib_gid_index"_fact);
  FactSet facts = run(std::move(node));
  CHECK(facts.get_int("rdma.hca_count"_fact) == 0);
  CHECK(list(facts, "rdma.hcas"_fact).empty());
  CHECK(facts.get_int("rdma.active_port_count"_fact) == 0);
  CHECK(facts.get_bool("rdma.gpudirect.nvidia_peermem"_fact) == false);
  CHECK(facts.get_bool("rdma.gpudirect.dmabuf_possible"_fact) == false);  // no HCA to import one
  CHECK(state(facts, "rdma.gpudirect.provider"_fact) == FactState::absent);
  CHECK(state(facts, "rdma.gpu_nic_affinity"_fact) == FactState::absent);
}

TEST_CASE("rdma probe: the GPUDirect provider", "[probes][rdma]") {
  SECTION("no peer-memory module, the open module on 6.8 with mlx5: dma-buf") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths.erase("/sys/module/nvidia_peermem");
    FactSet facts = run(std::move(node));
    CHECK(facts.get_bool("rdma.gpudirect.nvidia_peermem"_fact) == false);
    CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "dma-buf");
  }
  SECTION("no peer-memory module and the proprietary module: none") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths.erase("/sys/module/nvidia_peermem");
    node.facts.set("kmod.nvidia.flavor"_fact, std::string("proprietary"));
    FactSet facts = run(std::move(node));
    CHECK(facts.get_bool("rdma.gpudirect.dmabuf_possible"_fact) == false);
    CHECK(state(facts, "rdma.gpudirect.provider"_fact) == FactState::absent);
  }
  SECTION("the open module on a 5.4 kernel: none") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths.erase("/sys/module/nvidia_peermem");
    node.facts.set("host.kernel_release"_fact, std::string("5.4.0-216-generic"));
    FactSet facts = run(std::move(node));
    CHECK(state(facts, "rdma.gpudirect.provider"_fact) == FactState::absent);
  }
  SECTION("the module's flavour unknown: the provider is unknown, not absent") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths.erase("/sys/module/nvidia_peermem");
    node.facts.set_unknown("kmod.nvidia.flavor"_fact, "no /proc/driver/nvidia/version");
    FactSet facts = run(std::move(node));
    CHECK(state(facts, "rdma.gpudirect.provider"_fact) == FactState::unknown);
  }
  SECTION("nv_peer_mem registered with MLNX_OFED's peer-memory API") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths.erase("/sys/module/nvidia_peermem");
    node.facts.set("kmod.nvidia.flavor"_fact, std::string("proprietary"));
    node.capture.paths["/sys/kernel/mm/memory_peers/nv_mem/version"].read = std::string("1.3-0\n");
    FactSet facts = run(std::move(node));
    CHECK(facts.get_bool("rdma.gpudirect.nv_peer_mem"_fact) == true);
    CHECK(list(facts, "rdma.gpudirect.memory_peers"_fact) == std::vector<std::string>{"nv_mem"});
    CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "nv_peer_mem");
  }
  SECTION("nvidia_peermem wins over the dma-buf path") {
    FactSet facts = run(gd::test_rdma::hgx_infiniband_node());
    CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "nvidia_peermem");
  }
}

TEST_CASE("rdma probe: an AWS node with Elastic Fabric Adapters", "[probes][rdma]") {
  SECTION("EFA ports are active RDMA ports, but not NCCL's InfiniBand/RoCE ones") {
    FactSet facts = run(gd::test_rdma::aws_efa_node());
    CHECK(facts.get_int("rdma.hca_count"_fact) == 32);
    CHECK(facts.get_int("rdma.active_port_count"_fact) == 32);
    CHECK(facts.get_int("rdma.ib_roce_active_port_count"_fact) == 0);
    CHECK(facts.get_int("rdma.efa_device_count"_fact) == 32);
    CHECK(list(facts, "rdma.active_link_layers"_fact) == std::vector<std::string>{"Unknown"});
    CHECK(list(facts, "rdma.hca_drivers"_fact) == std::vector<std::string>{"efa"});
    // The empty fw_ver of a driver without a firmware string is no unreadable file.
    CHECK(list(facts, "rdma.unreadable"_fact).empty());
    // No ", fw ...": the empty fw_ver is no version.
    CHECK(any_contains(list(facts, "rdma.hcas"_fact), "rdmap72s0 port 1: ACTIVE LinkUp Unknown 100 Gb/sec (4X EDR)"));
    CHECK_FALSE(any_contains(list(facts, "rdma.hcas"_fact), "fw"));
    CHECK(list(facts, "rdma.gpu_nic_affinity"_fact)[0] == "GPU 0000:47:00.0 <-> rdmap72s0, rdmap73s0, rdmap74s0, rdmap75s0 (same PCIe switch)");
    // The proprietary module exports no dma-buf: no provider.
    CHECK(facts.get_bool("rdma.gpudirect.efa_nv_peermem"_fact) == false);
    CHECK(state(facts, "rdma.gpudirect.provider"_fact) == FactState::absent);
  }
  SECTION("AWS's efa_nv_peermem module") {
    Node node = gd::test_rdma::aws_efa_node();
    node.capture.paths["/sys/module/efa_nv_peermem"].list = std::vector<std::string>{"version", "parameters"};
    FactSet facts = run(std::move(node));
    CHECK(facts.get_bool("rdma.gpudirect.efa_nv_peermem"_fact) == true);
    CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "efa_nv_peermem");
  }
  SECTION("the open module on 6.1: EFA imports dma-bufs (since 5.16)") {
    Node node = gd::test_rdma::aws_efa_node();
    node.facts.set("kmod.nvidia.flavor"_fact, std::string("open"));
    FactSet facts = run(std::move(node));
    CHECK(facts.get_bool("rdma.gpudirect.dmabuf_possible"_fact) == true);
    CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "dma-buf");
  }
  SECTION("the open module on 5.15: EFA did not import dma-bufs yet") {
    Node node = gd::test_rdma::aws_efa_node();
    node.facts.set("kmod.nvidia.flavor"_fact, std::string("open"));
    node.facts.set("host.kernel_release"_fact, std::string("5.15.0-1072-aws"));
    FactSet facts = run(std::move(node));
    CHECK(facts.get_bool("rdma.gpudirect.dmabuf_possible"_fact) == false);
  }
}

TEST_CASE("rdma probe: RoCE GID types against NCCL_IB_GID_INDEX", "[probes][rdma]") {
  SECTION("the RoCE v2 entries of each port") {
    FactSet facts = run(roce_node(std::nullopt));
    CHECK(list(facts, "rdma.roce_v2_gids"_fact) == std::vector<std::string>{"mlx5_0 port 1: 1, 3", "mlx5_1 port 1: 1, 3"});
    CHECK(list(facts, "rdma.active_link_layers"_fact) == std::vector<std::string>{"Ethernet"});
    CHECK(state(facts, "rdma.nccl_gid_index_problem_count"_fact) == FactState::absent);
    CHECK(state(facts, "rdma.gpu_nic_affinity"_fact) == FactState::absent);  // no GPU
  }
  SECTION("a RoCE v2 index: no problem") {
    FactSet facts = run(roce_node("3"));
    CHECK(facts.get_int("rdma.nccl_gid_index_problem_count"_fact) == 0);
  }
  SECTION("a RoCE v1 index") {
    FactSet facts = run(roce_node("0"));
    CHECK(facts.get_int("rdma.nccl_gid_index_problem_count"_fact) == 2);
    CHECK(list(facts, "rdma.nccl_gid_index_problems"_fact) ==
          std::vector<std::string>{"mlx5_0 port 1: GID 0 is IB/RoCE v1", "mlx5_1 port 1: GID 0 is IB/RoCE v1"});
  }
  SECTION("an empty entry") {
    FactSet facts = run(roce_node("7"));
    CHECK(list(facts, "rdma.nccl_gid_index_problems"_fact)[0] == "mlx5_0 port 1: GID 7 is empty");
  }
  SECTION("past the end of the table") {
    FactSet facts = run(roce_node("40"));
    CHECK(list(facts, "rdma.nccl_gid_index_problems"_fact)[0] == "mlx5_0 port 1: GID 40 does not exist (the table is shorter)");
  }
  SECTION("-1: NCCL picks the index itself") {
    FactSet facts = run(roce_node("-1"));
    CHECK(state(facts, "rdma.nccl_gid_index_problem_count"_fact) == FactState::absent);
  }
  SECTION("not a number") {
    FactSet facts = run(roce_node("three"));
    CHECK(any_contains(list(facts, "rdma.nccl_gid_index_problems"_fact), "NCCL_IB_GID_INDEX 'three' is not an index"));
  }
  SECTION("InfiniBand ports are not checked") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.facts.set("env.nccl_ib_gid_index"_fact, std::string("0"));
    FactSet facts = run(std::move(node));
    CHECK(facts.get_int("rdma.nccl_gid_index_problem_count"_fact) == 0);
  }
}

TEST_CASE("rdma probe: hostile trees name the file and go on", "[probes][rdma]") {
  SECTION("a garbage state file") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths["/sys/class/infiniband/mlx5_2/ports/1/state"].read = std::string("\x7f\x45LF garbage\n");
    FactSet facts = run(std::move(node));
    auto unreadable = list(facts, "rdma.unreadable"_fact);
    REQUIRE(unreadable.size() == 1);
    CHECK(unreadable[0].starts_with("/sys/class/infiniband/mlx5_2/ports/1/state: unrecognised content"));
    // Neither active nor down: not counted as a port whose state is known.
    CHECK(facts.get_int("rdma.port_count"_fact) == 7);
    CHECK(facts.get_int("rdma.active_port_count"_fact) == 7);
    CHECK(facts.get_int("rdma.down_port_count"_fact) == 0);
    CHECK(any_contains(list(facts, "rdma.hcas"_fact), "mlx5_2 port 1: state unknown LinkUp"));
  }
  SECTION("a huge file is read only as far as its bound") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths["/sys/class/infiniband/mlx5_0/ports/1/rate"].read = std::string(4 * 1024 * 1024, '4');
    FactSet facts = run(std::move(node));
    auto unreadable = list(facts, "rdma.unreadable"_fact);
    REQUIRE(unreadable.size() == 1);
    CHECK(unreadable[0].starts_with("/sys/class/infiniband/mlx5_0/ports/1/rate: unrecognised content '4444"));
    CHECK(unreadable[0].size() < 200);
    CHECK(facts.get_int("rdma.active_port_count"_fact) == 8);  // the port's state is fine
  }
  SECTION("a device without its ports folder") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    std::erase_if(node.capture.paths, [](const auto& entry) { return entry.first.starts_with("/sys/class/infiniband/mlx5_5/ports"); });
    FactSet facts = run(std::move(node));
    CHECK(list(facts, "rdma.unreadable"_fact) == std::vector<std::string>{"/sys/class/infiniband/mlx5_5/ports: no ports folder"});
    CHECK(facts.get_int("rdma.hca_count"_fact) == 8);
    CHECK(facts.get_int("rdma.port_count"_fact) == 7);
    CHECK(any_contains(list(facts, "rdma.hcas"_fact), "mlx5_5: no ports read"));
  }
  SECTION("an unreadable state file") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths["/sys/class/infiniband/mlx5_1/ports/1/state"].read = std::unexpected(gd::IoError{EIO});
    FactSet facts = run(std::move(node));
    CHECK(any_contains(list(facts, "rdma.unreadable"_fact), "/sys/class/infiniband/mlx5_1/ports/1/state: EIO"));
  }
  SECTION("the class folder cannot be listed: every port fact unknown, with why") {
    Node node = gd::test_rdma::hgx_infiniband_node();
    node.capture.paths["/sys/class/infiniband"].list = std::unexpected(gd::IoError{EACCES});
    FactSet facts = run(std::move(node));
    CHECK(state(facts, "rdma.hca_count"_fact) == FactState::unknown);
    CHECK(facts.find("rdma.hca_count"_fact)->reason.find("EACCES") != std::string::npos);
    CHECK(state(facts, "rdma.gpu_nic_affinity"_fact) == FactState::unknown);
    // The module is still seen.
    CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "nvidia_peermem");
  }
  SECTION("a GID entry that is not a GID") {
    Node node = roce_node("1");
    node.capture.paths["/sys/class/infiniband/mlx5_0/ports/1/gids/1"].read = std::string("not a gid\n");
    FactSet facts = run(std::move(node));
    CHECK(any_contains(list(facts, "rdma.unreadable"_fact), "/sys/class/infiniband/mlx5_0/ports/1/gids/1: unrecognised content 'not a gid'"));
    CHECK(list(facts, "rdma.roce_v2_gids"_fact)[0] == "mlx5_0 port 1: 3");
  }
}

}  // namespace GD_UNITY_ID
