#include "probes/pci/pci_sysfs.hpp"

#include <catch2/catch.hpp>

#include <string_view>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::PciFunctionKind;

// Inputs are the attribute texts as drivers/pci/pci-sysfs.c prints them; the H200 values are
// those of the real host in shared/fixtures/real/h200-container-580.159.04/observations.md.

TEST_CASE("pci parsers: sysfs hex attributes", "[probes][pci_sysfs]") {
  CHECK(gd::parse_sysfs_hex("0x10de\n") == 0x10de);
  CHECK(gd::parse_sysfs_hex("0x2335\n") == 0x2335);
  CHECK(gd::parse_sysfs_hex("0x030200\n") == 0x030200);
  CHECK(gd::parse_sysfs_hex("0x18bf") == 0x18bf);
  CHECK(gd::parse_sysfs_hex("0X2B85\n") == 0x2b85);
  for (std::string_view bad : {"", "\n", "10de\n", "0x\n", "0xg1\n", "0x10de 0x2335\n", "0x123456789\n", "-0x1\n"}) {
    CAPTURE(bad);
    CHECK_FALSE(gd::parse_sysfs_hex(bad).has_value());
  }
}

TEST_CASE("pci parsers: decimal attributes and link speeds", "[probes][pci_sysfs]") {
  CHECK(gd::parse_sysfs_int("16\n") == 16);
  CHECK(gd::parse_sysfs_int("-1\n") == -1);  // numa_node without NUMA
  CHECK(gd::parse_sysfs_int("0\n") == 0);
  CHECK_FALSE(gd::parse_sysfs_int("").has_value());
  CHECK_FALSE(gd::parse_sysfs_int("x16\n").has_value());
  CHECK_FALSE(gd::parse_sysfs_int("16 lanes\n").has_value());

  CHECK(gd::parse_link_speed("32.0 GT/s PCIe\n") == "32.0 GT/s PCIe");
  CHECK(gd::parse_link_speed("2.5 GT/s PCIe\n") == "2.5 GT/s PCIe");
  CHECK(gd::parse_link_speed("8 GT/s\n") == "8 GT/s");  // kernels before 4.17
  CHECK_FALSE(gd::parse_link_speed("Unknown\n").has_value());
  CHECK_FALSE(gd::parse_link_speed("Unknown speed\n").has_value());
  CHECK_FALSE(gd::parse_link_speed("\n").has_value());
  CHECK_FALSE(gd::parse_link_speed("fast\n").has_value());
}

TEST_CASE("pci parsers: function kinds by class code", "[probes][pci_sysfs]") {
  CHECK(gd::classify_pci_class(0x030000) == PciFunctionKind::gpu);       // VGA (GeForce)
  CHECK(gd::classify_pci_class(0x030200) == PciFunctionKind::gpu);       // 3D controller (H200)
  CHECK(gd::classify_pci_class(0x038000) == PciFunctionKind::gpu);       // display, other
  CHECK(gd::classify_pci_class(0x068000) == PciFunctionKind::nvswitch);  // bridge, other (NVSwitch)
  CHECK(gd::classify_pci_class(0x040300) == PciFunctionKind::other);     // HD audio
  CHECK(gd::classify_pci_class(0x0c0330) == PciFunctionKind::other);     // USB xHCI
  CHECK(gd::classify_pci_class(0x0c8000) == PciFunctionKind::other);     // USB-C UCSI
  CHECK(gd::classify_pci_class(0x060400) == PciFunctionKind::other);     // PCI bridge

  CHECK(gd::link_basename("../../../bus/pci/drivers/nvidia") == "nvidia");
  CHECK(gd::link_basename("../../../kernel/iommu_groups/14") == "14");
  CHECK(gd::link_basename("vfio-pci") == "vfio-pci");
  CHECK(gd::link_basename("../drivers/nouveau/") == "nouveau");
}

TEST_CASE("pci parsers: a Tegra SoC in the device tree", "[probes][pci_sysfs]") {
  // arch/arm64/boot/dts/nvidia/tegra234-p3737-0000+p3701-0000.dts (Jetson AGX Orin dev kit).
  using namespace std::string_view_literals;
  CHECK(gd::compatible_names_tegra("nvidia,p3737-0000+p3701-0000\0nvidia,p3701-0000\0nvidia,tegra234\0"sv));
  CHECK(gd::compatible_names_tegra("nvidia,p3449-0000+p3668-0000\0nvidia,tegra194\0"sv));
  CHECK_FALSE(gd::compatible_names_tegra("raspberrypi,5-model-b\0brcm,bcm2712\0"sv));
  CHECK_FALSE(gd::compatible_names_tegra("linux,dummy-virt\0"sv));
  CHECK_FALSE(gd::compatible_names_tegra(""sv));
  CHECK_FALSE(gd::compatible_names_tegra("vendor,board-nvidia,tegra234"sv));  // only at an entry's start
}

}  // namespace GD_UNITY_ID
