#pragma once
// The limits collectives meet on one node (issue 26, "Limits for collectives"): /dev/shm, where
// NCCL's shared-memory transport puts its segments; RLIMIT_MEMLOCK and CAP_IPC_LOCK, which bound
// what RDMA may pin; which RDMA devices this process could use; and how many GPUs it has, which
// decides whether any of it matters. All of it is the running process's (its container's, its
// job's), read from /proc/self, /sys/class/infiniband and /dev/infiniband through Host, so that
// --root and a replayed capture answer too.

#include "probes/probe.hpp"

namespace gd {

/// limits.*: reads dev.gpu_nodes (probes/devices), so it runs after the device-node probe.
void probe_collective_limits(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
