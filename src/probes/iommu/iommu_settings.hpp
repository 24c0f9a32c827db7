#pragma once
// How the kernel set up the IOMMU (pure): the kernel command line's IOMMU and ACS options and
// what an IOMMU group's default domain type means for a device's DMA.

#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// The words of /proc/cmdline that choose the IOMMU's mode or the kernel's ACS handling, as
/// written, in order (Documentation/admin-guide/kernel-parameters.txt): iommu= (pt, nopt, off,
/// ...), intel_iommu=, amd_iommu=, iommu.passthrough=, iommu.strict=, pcie_acs_override=, and
/// pci= values that name ACS (pci=noacs, pci=disable_acs_redir=..., pci=config_acs=...).
std::vector<std::string> iommu_cmdline_options(std::string_view cmdline);

/// What an IOMMU group's "type" (/sys/kernel/iommu_groups/N/type) means for the device's DMA.
/// Values from the kernel's Documentation/ABI/testing/sysfs-kernel-iommu_groups and
/// drivers/iommu/iommu.c iommu_group_show_type(): "DMA" (translated, strict invalidation),
/// "DMA-FQ" (translated, lazy invalidation with a flush queue), "identity" (passthrough: bus
/// addresses are physical), "unmanaged" (owned by a user such as VFIO), "blocked" (no DMA),
/// "auto" (being changed), "unknown".
enum class DomainKind { translating, passthrough, user_owned, blocked, other };
DomainKind classify_domain_type(std::string_view type);

}  // namespace gd
