#pragma once
// Which HCA sits nearest to each GPU: behind the same PCIe switch (GPUDirect RDMA at full speed,
// NCCL's PIX/PXB), on the same NUMA node (through the CPU's root complex, PHB), or across NUMA
// nodes (through the CPUs' interconnect, SYS). The GPUs are the PCI layer's (pci.gpu.N.bus_id,
// pci.gpu.N.numa_node); their place in the PCI tree is read from /sys/bus/pci/devices/<bus id>.

#include "probes/probe.hpp"
#include "probes/rdma/hca_scan.hpp"

namespace gd {

/// rdma.gpu_nic_affinity: reads pci.* (probes/pci), so it runs after the PCI probe.
void set_nic_affinity_facts(Host& host, const HcaScan& scan, FactSet& facts);

}  // namespace gd
