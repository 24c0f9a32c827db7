#include "probes/kernel_log/iommu_fault_lines.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using List = std::vector<std::string>;

TEST_CASE("kernel log: IOMMU DMA fault lines are kept for the iommu layer", "[probes][klog][iommu]") {
  // Message texts as /dev/kmsg gives them (Dasharo/dasharo-issues#641, NVIDIA/cuda-samples#48).
  List lines = {
      "DMAR: IOMMU enabled",
      "DMAR: DRHD: handling fault status reg 3",
      "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x7cd80000 [fault reason 0x01] Present bit in root entry is clear",
      "DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x0 [fault reason 0x25] Blocked a compatibility format interrupt request",
      "nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]",
      "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04",
  };
  CHECK(gd::iommu_fault_lines(lines, 32) ==
        List{lines[2], lines[4]});
  // Bounded: the newest kept, oldest first.
  List many;
  for (int i = 0; i < 50; ++i) {
    many.push_back("AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x0000 address=0x" + std::to_string(i) + " flags=0x0020]");
  }
  List kept = gd::iommu_fault_lines(many, 32);
  REQUIRE(kept.size() == 32);
  CHECK(kept.front() == many[18]);
  CHECK(kept.back() == many[49]);
  CHECK(gd::iommu_fault_lines({}, 32).empty());
}

}  // namespace GD_UNITY_ID
