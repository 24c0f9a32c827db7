#pragma once
// The IOMMU and PCIe ACS layer (issue 26 item 2): whether an IOMMU translates the GPUs' and RDMA
// NICs' DMA, the ACS redirect bits of every bridge between two GPUs and between a GPU and an RDMA
// NIC, and the kernel log's IOMMU faults matched to those devices. Everything from files through
// Host (sysfs, /proc/cmdline) and from earlier layers' facts (the GPUs' bus ids from pci.*, the
// fault lines from klog.*), so --root and a replayed capture answer the same. Reads only.

#include "probes/probe.hpp"

namespace gd {

/// iommu.* and acs.*: reads pci.* (probes/pci) and klog.iommu_fault_lines (probes/kernel_log), so
/// it runs after both.
void probe_iommu(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
