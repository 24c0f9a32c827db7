#pragma once
// The device an IOMMU fault line of the kernel log names (pure). Formats, from the Linux sources:
// - Intel VT-d, drivers/iommu/intel/dmar.c dmar_fault_do_one() with pr_fmt "DMAR: ":
//   "DMAR: [DMA Write NO_PASID] Request device [18:00.0] fault addr 0x7f2c0000 [fault reason
//   0x71] SM: Present bit in first-level paging entry is clear" (5.x-6.x; a few 5.x releases
//   printed "[0x18:0x00.0]"; 4.x "DMAR: [DMA Write] Request device [18:00.0] fault addr ...";
//   "[... PASID 0x1]" for PASID requests). The bus id carries no PCI domain. Interrupt remapping
//   faults ("[INTR-REMAP]") are not DMA and are not taken.
// - AMD-Vi, drivers/iommu/amd/iommu.c amd_iommu_report_page_fault(): "AMD-Vi: Event logged
//   [IO_PAGE_FAULT device=0000:41:00.0 domain=0x000e address=0x... flags=0x0020]" (6.x, with the
//   PCI segment; older "device=41:00.0"), or through pci_err() with the device's own name in front:
//   "nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e address=... flags=...]".

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// The requester a fault line names: "0000:41:00.0" when the line gives the domain, "18:00.0"
/// (bus:device.function) when it does not. nullopt for a line that is not a DMA fault naming one.
std::optional<std::string> iommu_fault_device(std::string_view line);

/// Whether a fault's device (iommu_fault_device) is `bus_id` ("0000:18:00.0"): equal, or the
/// same bus:device.function when the fault gives no domain.
bool fault_device_matches(std::string_view fault_device, std::string_view bus_id);

}  // namespace gd
