// The PCI tree read from sysfs links (probes/shared/pci_topology), as the IOMMU layer (bridges
// between two devices) and the RDMA layer (a GPU's nearest NIC) use it.

#include "probes/shared/pci_topology.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using Path = std::vector<std::string>;

TEST_CASE("PCI path: from the /sys/bus/pci/devices link to the bridges above", "[probes][iommu]") {
  // ls -l /sys/bus/pci/devices/ of a host with a GPU behind a PCIe switch (relative, as the kernel makes them).
  CHECK(gd::pci_path_from_link("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0") ==
        Path{"0000:00:01.0", "0000:01:00.0", "0000:02:08.0", "0000:03:00.0"});
  // A VM's GPU on the root bus: no bridge above it.
  CHECK(gd::pci_path_from_link("../../../devices/pci0000:00/0000:00:06.0") == Path{"0000:00:06.0"});
  // Intel VMD: a second host bridge (domain 10000) below a function of the first.
  CHECK(gd::pci_path_from_link("/sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0/10000:e1:00.0") ==
        Path{"0000:00:0e.0", "10000:e0:06.0", "10000:e1:00.0"});
  CHECK_FALSE(gd::pci_path_from_link("../../../devices/platform/soc/gpu").has_value());
  CHECK_FALSE(gd::pci_path_from_link("").has_value());
  CHECK_FALSE(gd::pci_path_from_link("../../../devices/pci0000:00/0000:00:01.0/driver").has_value());
}

TEST_CASE("PCI path: a device's host bridge and functions from its sysfs link", "[probes][shared][rdma][iommu]") {
  auto nic = gd::parse_pci_path("../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:01.0/0000:1b:00.0/infiniband/mlx5_0");
  REQUIRE(nic);
  CHECK(nic->root == "pci0000:17");
  CHECK(nic->chain == std::vector<std::string>{"0000:17:01.0", "0000:18:00.0", "0000:19:01.0", "0000:1b:00.0"});
  auto gpu = gd::parse_pci_path("../../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0");
  REQUIRE(gpu);
  CHECK(gpu->chain.back() == "0000:1a:00.0");
  CHECK_FALSE(gd::parse_pci_path("../../devices/virtual/infiniband/rxe0"));  // soft RoCE: no PCI function
  CHECK_FALSE(gd::parse_pci_path("../../../0000:1a:00.0"));                  // the device link alone: no root
  CHECK_FALSE(gd::parse_pci_path(""));
  // Intel VMD: the inner host bridge is passed over, its functions stay below the VMD function.
  auto vmd = gd::parse_pci_path("../../devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0/10000:e1:00.0/infiniband/mlx5_0");
  REQUIRE(vmd);
  CHECK(vmd->root == "pci0000:00");
  CHECK(vmd->chain == std::vector<std::string>{"0000:00:0e.0", "10000:e0:06.0", "10000:e1:00.0"});
  // An ARM SoC: the host bridge below a platform device.
  auto soc = gd::parse_pci_path("/sys/devices/platform/soc/3a00000.pcie/pci0008:00/0008:00:00.0/0008:01:00.0");
  REQUIRE(soc);
  CHECK(soc->root == "pci0008:00");
  CHECK(soc->chain == std::vector<std::string>{"0008:00:00.0", "0008:01:00.0"});
}

TEST_CASE("PCI path: bus ids", "[probes][iommu]") {
  CHECK(gd::is_pci_bus_id("0000:18:00.0"));
  CHECK(gd::is_pci_bus_id("10000:e1:00.7"));
  CHECK_FALSE(gd::is_pci_bus_id("18:00.0"));
  CHECK_FALSE(gd::is_pci_bus_id("0000:18:00.8"));
  CHECK_FALSE(gd::is_pci_bus_id("pci0000:00"));
  CHECK_FALSE(gd::is_pci_bus_id("0000:18:00.0x"));
}

TEST_CASE("PCI path: host bridges", "[probes][shared]") {
  CHECK(gd::is_host_bridge("pci0000:00"));
  CHECK(gd::is_host_bridge("pci10000:e0"));
  CHECK_FALSE(gd::is_host_bridge("pci0000:0"));
  CHECK_FALSE(gd::is_host_bridge("pci_bus"));
  CHECK_FALSE(gd::is_host_bridge("0000:00:01.0"));
}

TEST_CASE("PCI path: the bridges between two GPUs", "[probes][iommu]") {
  // Two GPUs below two downstream ports of one switch under root port 00:01.0: traffic turns in
  // the switch; the kernel checks both downstream ports and the common upstream port.
  Path a{"0000:00:01.0", "0000:01:00.0", "0000:02:08.0", "0000:03:00.0"};
  Path b{"0000:00:01.0", "0000:01:00.0", "0000:02:10.0", "0000:04:00.0"};
  gd::BridgesBetween same_switch = gd::bridges_between(a, b);
  CHECK(same_switch.bridges == Path{"0000:01:00.0", "0000:02:08.0", "0000:02:10.0"});
  CHECK_FALSE(same_switch.through_root_complex);

  // Two GPUs under two root ports: they meet in the root complex; every bridge of both paths.
  Path c{"0000:00:01.0", "0000:01:00.0"};
  Path d{"0000:00:03.0", "0000:02:00.0"};
  gd::BridgesBetween root = gd::bridges_between(c, d);
  CHECK(root.bridges == Path{"0000:00:01.0", "0000:00:03.0"});
  CHECK(root.through_root_complex);

  // A VM: both on the root bus, nothing between them.
  gd::BridgesBetween vm = gd::bridges_between(Path{"0000:00:06.0"}, Path{"0000:00:07.0"});
  CHECK(vm.bridges.empty());
  CHECK(vm.through_root_complex);

  // Two functions below one port (a GPU and its audio function, or two GPUs on one bus):
  // the only bridge is the port itself.
  CHECK(gd::bridges_between(Path{"0000:00:01.0", "0000:01:00.0"}, Path{"0000:00:01.0", "0000:01:00.1"}).bridges ==
        Path{"0000:00:01.0"});
}

}  // namespace GD_UNITY_ID
