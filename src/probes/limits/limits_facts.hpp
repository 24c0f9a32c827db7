#pragma once
// The limits collectives meet on one node: /dev/shm, RLIMIT_MEMLOCK, CAP_IPC_LOCK, the RDMA devices
// this process could use, and its GPUs (probes/limits/collective_limits). All are the running
// process's: its container's and its job's settings, not the node's.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_limits_facts[] = {
    FactSpec{"limits.shm.fstype", T::string,
             "filesystem mounted on /dev/shm (tmpfs), from /proc/self/mountinfo (the topmost mount); absent when nothing is mounted there"},
    FactSpec{"limits.shm.size_bytes", T::integer,
             "size of the /dev/shm tmpfs in bytes: its size= option, or half of MemTotal without one (the kernel's default); "
             "absent when unlimited (size=0), not a tmpfs, or not mounted. Docker's default is 64 MiB (--shm-size)"},
    FactSpec{"limits.memlock.soft_bytes", T::integer,
             "RLIMIT_MEMLOCK soft limit in bytes (/proc/self/limits 'Max locked memory'); absent when unlimited. "
             "RDMA memory registration pins pages against it unless the process has CAP_IPC_LOCK"},
    FactSpec{"limits.memlock.hard_bytes", T::integer,
             "RLIMIT_MEMLOCK hard limit in bytes, the most the soft limit may be raised to without privilege; absent when unlimited"},
    FactSpec{"limits.cap_ipc_lock", T::boolean,
             "the process has CAP_IPC_LOCK in its effective set (/proc/self/status CapEff bit 14): RLIMIT_MEMLOCK does not bound it"},
    FactSpec{"limits.rdma.devices", T::list, "RDMA devices in /sys/class/infiniband (mlx5_0, ...); empty when there are none"},
    FactSpec{"limits.rdma.device_count", T::integer, "number of RDMA devices in /sys/class/infiniband"},
    FactSpec{"limits.rdma.uverbs", T::list,
             "/dev/infiniband/uverbs* nodes: the verbs devices this process (this container) was given; empty when none"},
    FactSpec{"limits.rdma.uverbs_count", T::integer, "number of /dev/infiniband/uverbs* nodes"},
    FactSpec{"limits.gpu_count", T::integer,
             "GPUs this process has: the driver's GPUs whose /dev/nvidiaN node is present (dev.gpu_nodes); "
             "two or more means NCCL may connect GPUs of this node through /dev/shm"},
};

constexpr std::span<const FactSpec> limits_facts() { return k_limits_facts; }

}  // namespace gd::catalog
