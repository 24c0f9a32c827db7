// The RDMA layer's probe under --root on a real folder laid out as sysfs is (RealHost): the class
// entry a symlink into /sys/devices, the device's "device" and "driver" links relative to it, the
// GPU's /sys/bus/pci/devices link; the probe reads through the links inside the root.

#include "probes/rdma/rdma_probe.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "sys/real_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using namespace gd::fact_literals;

TEST_CASE("rdma probe under --root: sysfs links resolved inside the tree", "[probes][rdma]") {
  gd::test::TempTree tree;
  const std::string upstream = "/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0";
  const std::string nic = upstream + "/0000:19:01.0/0000:1b:00.0";
  const std::string gpu = upstream + "/0000:19:00.0/0000:1a:00.0";
  const std::string ib = nic + "/infiniband/mlx5_0";
  tree.file(ib + "/fw_ver", "28.39.1002\n");
  tree.file(ib + "/hca_type", "MT4129\n");
  tree.file(ib + "/ports/1/state", "4: ACTIVE\n");
  tree.file(ib + "/ports/1/phys_state", "5: LinkUp\n");
  tree.file(ib + "/ports/1/link_layer", "InfiniBand\n");
  tree.file(ib + "/ports/1/rate", "400 Gb/sec (4X NDR)\n");
  tree.link(ib + "/device", "../../../0000:1b:00.0");
  tree.file(nic + "/numa_node", "0\n");
  tree.dir("/sys/bus/pci/drivers/mlx5_core");
  tree.link(nic + "/driver", "../../../../../../bus/pci/drivers/mlx5_core");
  tree.link("/sys/class/infiniband/mlx5_0", "../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:01.0/0000:1b:00.0/infiniband/mlx5_0");
  tree.file(gpu + "/numa_node", "0\n");
  tree.link("/sys/bus/pci/devices/0000:1a:00.0", "../../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0");
  tree.file("/sys/module/nvidia_peermem/version", "580.159.04\n");

  gd::RealHost host(tree.root(), {});
  gd::FactSet facts;
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
  facts.set("pci.gpu.0.bus_id"_fact, std::string("0000:1a:00.0"));
  facts.set("pci.gpu.0.numa_node"_fact, std::int64_t{0});
  facts.set("kmod.nvidia.flavor"_fact, std::string("proprietary"));
  facts.set("host.kernel_release"_fact, std::string("6.8.0-49-generic"));
  facts.set_absent("env.nccl_ib_gid_index"_fact);
  gd::probe_rdma(host, gd::ProbeOptions{}, facts);

  CHECK(facts.get_int("rdma.hca_count"_fact) == 1);
  CHECK(facts.get_int("rdma.active_port_count"_fact) == 1);
  const gd::Fact* hcas = facts.find("rdma.hcas"_fact);
  REQUIRE(hcas);
  CHECK(std::get<std::vector<std::string>>(hcas->value) ==
        std::vector<std::string>{"mlx5_0 port 1: ACTIVE LinkUp InfiniBand 400 Gb/sec (4X NDR), fw 28.39.1002"});
  const gd::Fact* drivers = facts.find("rdma.hca_drivers"_fact);
  REQUIRE(drivers);
  CHECK(std::get<std::vector<std::string>>(drivers->value) == std::vector<std::string>{"mlx5_core"});
  const gd::Fact* unreadable = facts.find("rdma.unreadable"_fact);
  REQUIRE(unreadable);
  CHECK(std::get<std::vector<std::string>>(unreadable->value).empty());
  CHECK(facts.get_string("rdma.gpudirect.provider"_fact) == "nvidia_peermem");
  const gd::Fact* affinity = facts.find("rdma.gpu_nic_affinity"_fact);
  REQUIRE(affinity);
  CHECK(std::get<std::vector<std::string>>(affinity->value) ==
        std::vector<std::string>{"GPU 0000:1a:00.0 <-> mlx5_0 (same PCIe switch)"});
}

}  // namespace GD_UNITY_ID
