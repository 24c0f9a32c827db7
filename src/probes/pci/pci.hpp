#pragma once
// The PCI layer: which NVIDIA functions the kernel sees under /sys/bus/pci/devices, which driver
// holds each, and what their device ids mean (probes/shared/gpu_table). The attribute formats are
// parsed by probes/pci/pci_sysfs.

#include "probes/probe.hpp"

namespace gd {

/// pci.* facts: every vendor 0x10de GPU and NVSwitch function, its driver, link, NUMA node,
/// IOMMU group, and chip/architecture/compute capability/GSP file from the GPU table.
void probe_pci(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
