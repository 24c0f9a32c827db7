#include "probes/iommu/iommu_faults.hpp"
#include "probes/iommu/iommu_settings.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using List = std::vector<std::string>;

TEST_CASE("IOMMU: the command line's IOMMU and ACS words", "[probes][iommu]") {
  CHECK(gd::iommu_cmdline_options("BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=UUID=9ff8c203 ro quiet splash\n").empty());
  CHECK(gd::iommu_cmdline_options("BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt pci=realloc\n") == List{"intel_iommu=on", "iommu=pt"});
  CHECK(gd::iommu_cmdline_options("amd_iommu=off iommu.passthrough=1 iommu.strict=0 pci=noacs") ==
        List{"amd_iommu=off", "iommu.passthrough=1", "iommu.strict=0", "pci=noacs"});
  CHECK(gd::iommu_cmdline_options("pci=disable_acs_redir=0000:17:00.0;0000:17:01.0 pcie_acs_override=downstream,multifunction") ==
        List{"pci=disable_acs_redir=0000:17:00.0;0000:17:01.0", "pcie_acs_override=downstream,multifunction"});
  // The H200 VM's line: pci=realloc=off names no ACS; nothing here.
  CHECK(gd::iommu_cmdline_options("console=ttyS0 quiet reboot=k panic=1 swiotlb=noforce pci=realloc=off").empty());
  CHECK(gd::iommu_cmdline_options("").empty());
}

TEST_CASE("IOMMU: what a group's domain type means", "[probes][iommu]") {
  using gd::DomainKind;
  CHECK(gd::classify_domain_type("DMA\n") == DomainKind::translating);
  CHECK(gd::classify_domain_type("DMA-FQ\n") == DomainKind::translating);
  CHECK(gd::classify_domain_type("identity\n") == DomainKind::passthrough);
  CHECK(gd::classify_domain_type("unmanaged\n") == DomainKind::user_owned);
  CHECK(gd::classify_domain_type("blocked\n") == DomainKind::blocked);
  CHECK(gd::classify_domain_type("unknown\n") == DomainKind::other);
  CHECK(gd::classify_domain_type("") == DomainKind::other);
}

TEST_CASE("IOMMU faults: the device of real fault lines", "[probes][iommu]") {
  // Intel 6.x (Dasharo/dasharo-issues#641).
  CHECK(gd::iommu_fault_device("DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x7cd80000 [fault reason 0x01] "
                               "Present bit in root entry is clear") == "00:02.0");
  // The 5.x releases that printed 0x prefixes (thesofproject/sof-test#744).
  CHECK(gd::iommu_fault_device("DMAR: [DMA Read NO_PASID] Request device [0x00:0x02.0] fault addr 0x70ad5000 [fault reason "
                               "0x07] Next page table ptr is invalid") == "00:02.0");
  // 4.x without PASID (opencomputeproject/OpenNetworkLinux#897), and with "PASID ffffffff" (Marvell sonic binaries #84).
  CHECK(gd::iommu_fault_device("DMAR: [DMA Write] Request device [00:12.0] fault addr 0 [fault reason 05] PTE Write access is "
                               "not set") == "00:12.0");
  CHECK(gd::iommu_fault_device("DMAR: [DMA Read] Request device [06:00.0] PASID ffffffff fault addr 1a5e12000 [fault reason 06] "
                               "PTE Read access is not set") == "06:00.0");
  // The peer write the issue quotes, on a GPU.
  CHECK(gd::iommu_fault_device("DMAR: [DMA Write NO_PASID] Request device [18:00.0] fault addr 0x38bfe0000000 [fault reason "
                               "0x71] SM: Present bit in first-level paging entry is clear") == "18:00.0");
  // AMD through pci_err(), with the GPU's own name in front (NVIDIA/cuda-samples#48).
  CHECK(gd::iommu_fault_device("nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x80000040 "
                               "flags=0x0020]") == "0000:07:00.0");
  // AMD without a device behind the event (amd_iommu_report_page_fault's pr_err_ratelimited), 6.x and older.
  CHECK(gd::iommu_fault_device("AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:41:00.0 domain=0x000e address=0xfef00000 "
                               "flags=0x0020]") == "0000:41:00.0");
  CHECK(gd::iommu_fault_device("AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x0000 address=0x000000fdf9103300 "
                               "flags=0x0020]") == "41:00.0");
  // Not a DMA fault naming a device.
  CHECK_FALSE(gd::iommu_fault_device("DMAR: DRHD: handling fault status reg 3").has_value());
  CHECK_FALSE(gd::iommu_fault_device("DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x0 [fault reason 0x25] Blocked "
                                     "a compatibility format interrupt request").has_value());
  CHECK_FALSE(gd::iommu_fault_device("DMAR: IOMMU enabled").has_value());
  CHECK_FALSE(gd::iommu_fault_device("DMAR: [DMA Write NO_PASID] Request device [zz:00.0] fault addr 0x0").has_value());
  CHECK_FALSE(gd::iommu_fault_device("AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0x0 flags=0x0000]").has_value());
}

TEST_CASE("IOMMU faults: matching a fault's device to a bus id", "[probes][iommu]") {
  CHECK(gd::fault_device_matches("18:00.0", "0000:18:00.0"));
  CHECK(gd::fault_device_matches("0000:07:00.0", "0000:07:00.0"));
  CHECK_FALSE(gd::fault_device_matches("18:00.0", "0000:18:00.1"));
  CHECK_FALSE(gd::fault_device_matches("0000:07:00.0", "0001:07:00.0"));
  CHECK_FALSE(gd::fault_device_matches("8:00.0", "0000:18:00.0"));
}

}  // namespace GD_UNITY_ID
