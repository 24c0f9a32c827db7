#pragma once
// The nccl layer's probe (issue 26 item 5): NCCL's copies and the one torch would load, its
// version against the GPUs' architectures, and NCCL's variables against the host. Reads the
// facts of the python (py.dists, torch.*), libraries (lib.libnccl.*), limits (limits.rdma.devices),
// pci (pci.gpu.*) and environment (env.nccl_*) layers, and through Host only the files those do
// not: wheel METADATA, torch/lib, the libraries' version strings, /sys/class/net, /proc/net/route
// and NCCL_TOPO_FILE.

#include "probes/probe.hpp"

namespace gd {

/// nccl.*: runs after python_stack, libraries, collective_limits and pci.
void probe_nccl(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
