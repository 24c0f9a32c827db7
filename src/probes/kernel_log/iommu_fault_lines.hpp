#pragma once
// IOMMU DMA fault reports in the kernel log, kept as the kernel printed them (pure). The kernel-log
// layer only finds and bounds them; the iommu layer (probes/iommu) reads the device out of each and
// matches it to the GPUs and RDMA NICs, from the fact klog.iommu_fault_lines, so the log is read once.
// What counts: Intel VT-d's "DMAR: [DMA Read|Write ...] Request device [bb:dd.f] fault addr ..."
// (drivers/iommu/intel/dmar.c dmar_fault_do_one(), interrupt-remapping faults left out) and
// AMD-Vi's "Event logged [IO_PAGE_FAULT ...]" (drivers/iommu/amd/iommu.c).

#include <cstddef>
#include <string>
#include <vector>

namespace gd {

/// The newest IOMMU DMA fault lines (at most `max_lines`), oldest first.
std::vector<std::string> iommu_fault_lines(const std::vector<std::string>& lines, std::size_t max_lines);

}  // namespace gd
