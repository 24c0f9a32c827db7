#pragma once
// The RDMA layer's probe (issue 26 item 4): HCAs and ports from /sys/class/infiniband, the
// GPUDirect RDMA provider, RoCE GID types against NCCL_IB_GID_INDEX, and each GPU's nearest HCA.

#include "probes/probe.hpp"

namespace gd {

/// rdma.*: reads host.kernel_release (system), env.nccl_ib_gid_index (environment),
/// kmod.nvidia.flavor (driver) and pci.* (pci), so it runs after those probes.
void probe_rdma(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
