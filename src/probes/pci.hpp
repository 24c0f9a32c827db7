#pragma once
#include "probes/probe.hpp"

namespace gd {
/// PCI functions of vendor 0x10de under /sys/bus/pci/devices: class, chip, architecture, bound driver, link, NUMA, IOMMU group.
void probe_pci(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
