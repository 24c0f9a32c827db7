// The parsers of /sys/class/infiniband (probes/rdma/infiniband_sysfs), on the text the kernel
// writes (drivers/infiniband/core/sysfs.c: state_show "%d: %s\n", phys_state_show "5: LinkUp\n",
// rate_show "%d%s Gb/sec (%dX%s)\n", link_layer_show, show_port_gid "%pI6\n",
// ib_cache_gid_type_str "IB/RoCE v1" / "RoCE v2").

#include "probes/rdma/infiniband_sysfs.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Closeness;
using gd::GidType;
using gd::PciPath;

TEST_CASE("infiniband sysfs: port states as state_show and phys_state_show print them", "[probes][rdma]") {
  auto active = gd::parse_numbered_name("4: ACTIVE\n");
  REQUIRE(active);
  CHECK(active->number == gd::k_port_state_active);
  CHECK(active->name == "ACTIVE");
  auto link_up = gd::parse_numbered_name("5: LinkUp\n");
  REQUIRE(link_up);
  CHECK(link_up->number == gd::k_phys_state_link_up);
  auto down = gd::parse_numbered_name("1: DOWN\n");
  REQUIRE(down);
  CHECK(down->name == "DOWN");
  auto polling = gd::parse_numbered_name("2: Polling\n");
  REQUIRE(polling);
  CHECK(polling->number == 2);
  // A name with a space, and the kernel's placeholder for a state it has no name for.
  CHECK(gd::parse_numbered_name("7: Phy Test\n")->name == "Phy Test");
  CHECK(gd::parse_numbered_name("9: <unknown>\n")->name == "<unknown>");
  CHECK(gd::parse_numbered_name("1: CA\n")->name == "CA");  // node_type

  // What the kernel never writes.
  CHECK_FALSE(gd::parse_numbered_name(""));
  CHECK_FALSE(gd::parse_numbered_name("\n"));
  CHECK_FALSE(gd::parse_numbered_name("ACTIVE\n"));
  CHECK_FALSE(gd::parse_numbered_name("4:ACTIVE\n"));
  CHECK_FALSE(gd::parse_numbered_name("x: ACTIVE\n"));
  CHECK_FALSE(gd::parse_numbered_name("4: \n"));
  CHECK_FALSE(gd::parse_numbered_name("4: ACTIVE\n5: LinkUp\n"));
  CHECK_FALSE(gd::parse_numbered_name("4: ACT\x01IVE\n"));
  CHECK_FALSE(gd::parse_numbered_name(std::string(300, '4')));
}

TEST_CASE("infiniband sysfs: link layer and rate", "[probes][rdma]") {
  CHECK(gd::parse_link_layer("InfiniBand\n") == "InfiniBand");
  CHECK(gd::parse_link_layer("Ethernet\n") == "Ethernet");
  CHECK(gd::parse_link_layer("Unknown\n") == "Unknown");
  CHECK_FALSE(gd::parse_link_layer("infiniband\n"));
  CHECK_FALSE(gd::parse_link_layer("IB\n"));

  CHECK(gd::parse_rate("400 Gb/sec (4X NDR)\n") == "400 Gb/sec (4X NDR)");
  CHECK(gd::parse_rate("200 Gb/sec (4X HDR)\n") == "200 Gb/sec (4X HDR)");
  CHECK(gd::parse_rate("2.5 Gb/sec (1X SDR)\n") == "2.5 Gb/sec (1X SDR)");
  CHECK(gd::parse_rate("10 Gb/sec (4X)\n") == "10 Gb/sec (4X)");  // SDR has no speed name: "%dX%s" with ""
  CHECK_FALSE(gd::parse_rate("fast\n"));
  CHECK_FALSE(gd::parse_rate(" Gb/sec (4X NDR)\n"));
  CHECK_FALSE(gd::parse_rate("400 Gb/sec 4X NDR\n"));
  CHECK_FALSE(gd::parse_rate("400.7 Gb/sec (4X NDR)\n"));
}

TEST_CASE("infiniband sysfs: firmware and HCA type lines", "[probes][rdma]") {
  CHECK(gd::parse_short_line("28.39.1002\n") == "28.39.1002");
  CHECK(gd::parse_short_line("MT4129\n") == "MT4129");
  CHECK_FALSE(gd::parse_short_line("\n"));
  CHECK_FALSE(gd::parse_short_line(std::string(100, 'x')));
  CHECK_FALSE(gd::parse_short_line("28.39\n1002\n"));
}

TEST_CASE("infiniband sysfs: GID table entries and their types", "[probes][rdma]") {
  CHECK(gd::parse_gid_type("RoCE v2\n") == GidType::roce_v2);
  CHECK(gd::parse_gid_type("IB/RoCE v1\n") == GidType::ib_roce_v1);
  CHECK_FALSE(gd::parse_gid_type("RoCE v3\n"));
  CHECK_FALSE(gd::parse_gid_type("roce v2\n"));
  CHECK(gd::to_string(GidType::roce_v2) == "RoCE v2");

  CHECK(gd::gid_is_zero("fe80:0000:0000:0000:0e42:a1ff:fe7c:3b5e\n") == false);
  CHECK(gd::gid_is_zero("0000:0000:0000:0000:0000:ffff:0a0a:0a0b\n") == false);  // IPv4 10.10.10.11
  CHECK(gd::gid_is_zero("0000:0000:0000:0000:0000:0000:0000:0000\n") == true);
  CHECK_FALSE(gd::gid_is_zero("fe80::e42:a1ff:fe7c:3b5e\n"));  // %pI6 never shortens
  CHECK_FALSE(gd::gid_is_zero("zzzz:0000:0000:0000:0000:0000:0000:0000\n"));
  CHECK_FALSE(gd::gid_is_zero("0000-0000:0000:0000:0000:0000:0000:0000\n"));
}

TEST_CASE("infiniband sysfs: how close a GPU and a NIC are", "[probes][rdma]") {
  PciPath gpu{"pci0000:17", {"0000:17:01.0", "0000:18:00.0", "0000:19:00.0", "0000:1a:00.0"}};
  PciPath nic_same_switch{"pci0000:17", {"0000:17:01.0", "0000:18:00.0", "0000:19:01.0", "0000:1b:00.0"}};
  PciPath nic_other_root_port{"pci0000:17", {"0000:17:02.0", "0000:20:00.0"}};
  PciPath nic_other_root{"pci0000:38", {"0000:38:01.0", "0000:39:00.0"}};
  CHECK(gd::closeness(gpu, 0, nic_same_switch, 0) == Closeness::same_switch);
  CHECK(gd::closeness(gpu, 0, nic_other_root_port, 0) == Closeness::same_root);
  CHECK(gd::closeness(gpu, 0, nic_other_root, 0) == Closeness::same_numa);
  CHECK(gd::closeness(gpu, 0, nic_other_root, 1) == Closeness::across_numa);
  CHECK(gd::closeness(gpu, -1, nic_other_root, -1) == Closeness::unknown_numa);
  CHECK(gd::closeness(gpu, std::nullopt, nic_other_root, 0) == Closeness::unknown_numa);
  // The order that picks the nearest NIC.
  CHECK(Closeness::same_switch < Closeness::same_root);
  CHECK(Closeness::same_numa < Closeness::across_numa);
  CHECK(gd::to_string(Closeness::same_switch) == "same PCIe switch");
}

TEST_CASE("infiniband sysfs: kernel release", "[probes][rdma]") {
  auto v = gd::parse_kernel_release("6.8.0-49-generic");
  REQUIRE(v);
  CHECK(v->major == 6);
  CHECK(v->minor == 8);
  CHECK(gd::parse_kernel_release("5.12-rc1")->minor == 12);
  CHECK(gd::parse_kernel_release("4.18.0-553.el8_10.x86_64")->major == 4);
  CHECK_FALSE(gd::parse_kernel_release("linux"));
  CHECK_FALSE(gd::parse_kernel_release("6"));
}

}  // namespace GD_UNITY_ID
