#pragma once
// RDMA devices and GPUDirect (issue 26 item 4): the HCAs of /sys/class/infiniband and their ports,
// the GPUDirect RDMA provider (a peer-memory module or the dma-buf path), the RoCE GID types
// NCCL_IB_GID_INDEX picks from, and which NIC sits near which GPU (probes/rdma/rdma_probe).
// The verbs device nodes this process was given are the limits layer's (limits.rdma.uverbs*).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_rdma_facts[] = {
    FactSpec{"rdma.hca_count", T::integer, "RDMA devices (HCAs) in /sys/class/infiniband (mlx5_0, ...); 0 = none"},
    FactSpec{"rdma.hcas", T::list,
             "one line per HCA port: 'mlx5_0 port 1: ACTIVE LinkUp InfiniBand 400 Gb/sec (4X NDR), fw 28.39.1002, "
             "PCI 0000:1a:00.0'"},
    FactSpec{"rdma.port_count", T::integer, "ports of all HCAs whose state could be read"},
    FactSpec{"rdma.active_port_count", T::integer, "ports whose state is ACTIVE and physical state LinkUp"},
    FactSpec{"rdma.ib_roce_active_port_count", T::integer,
             "active ports whose link layer is InfiniBand or Ethernet (RoCE): those NCCL's own InfiniBand transport "
             "(NET/IB) uses; an EFA port (link layer 'Unknown') is not one"},
    FactSpec{"rdma.efa_device_count", T::integer,
             "AWS Elastic Fabric Adapters among the HCAs (PCI driver efa): NCCL reaches them through the aws-ofi-nccl "
             "plugin, not NET/IB"},
    FactSpec{"rdma.down_port_count", T::integer, "ports not ACTIVE or not LinkUp (a cable out, a switch port down, a port disabled)"},
    FactSpec{"rdma.down_ports", T::list, "each port not ACTIVE or not LinkUp: 'mlx5_3 port 1: DOWN Polling (InfiniBand)'"},
    FactSpec{"rdma.down_port_ids", T::list, "the same ports as NCCL_IB_HCA names them, <hca>:<port>: 'mlx5_3:1'"},
    FactSpec{"rdma.active_link_layers", T::list, "link layers of the active ports, each once: InfiniBand, Ethernet (RoCE)"},
    FactSpec{"rdma.active_rates", T::list, "rates of the active ports, each once, as sysfs prints them: '400 Gb/sec (4X NDR)'"},
    FactSpec{"rdma.hca_drivers", T::list, "kernel drivers of the HCAs' PCI functions, each once (mlx5_core)"},
    FactSpec{"rdma.unreadable", T::list,
             "sysfs files of the HCAs that could not be read or held something unexpected, with why; empty when none"},
    // GPUDirect RDMA: how a NIC reaches GPU memory without a copy through host memory.
    FactSpec{"rdma.gpudirect.nvidia_peermem", T::boolean, "the nvidia_peermem module is loaded (/sys/module/nvidia_peermem)"},
    FactSpec{"rdma.gpudirect.nv_peer_mem", T::boolean,
             "the older nv_peer_mem module is loaded (/sys/module/nv_peer_mem, or MLNX_OFED's /sys/kernel/mm/memory_peers/nv_mem)"},
    FactSpec{"rdma.gpudirect.efa_nv_peermem", T::boolean,
             "AWS's efa_nv_peermem module is loaded (/sys/module/efa_nv_peermem): GPU memory for EFA devices"},
    FactSpec{"rdma.gpudirect.memory_peers", T::list,
             "clients of MLNX_OFED's peer-memory API, /sys/kernel/mm/memory_peers/* (nv_mem, nvidia-peermem); empty when none"},
    FactSpec{"rdma.gpudirect.dmabuf_possible", T::boolean,
             "the dma-buf path's preconditions hold: the open NVIDIA kernel module and an HCA driver that imports "
             "dma-bufs on this kernel (mlx5_core from 5.12, efa from 5.16); NCCL then needs no peer-memory module"},
    FactSpec{"rdma.gpudirect.provider", T::string,
             "what gives NICs GPU memory: 'nvidia_peermem', 'nv_peer_mem', 'efa_nv_peermem' or 'dma-buf'; absent when nothing does"},
    // RoCE: NCCL_IB_GID_INDEX names an entry of each port's GID table.
    FactSpec{"rdma.roce_v2_gids", T::list,
             "per RoCE (Ethernet) port, the GID indexes whose type is 'RoCE v2' and whose GID is not empty: 'mlx5_0 port 1: 1, 3'"},
    FactSpec{"rdma.nccl_gid_index_problem_count", T::integer,
             "RoCE ports on which the GID index NCCL_IB_GID_INDEX names is empty or not RoCE v2; absent when the variable is unset"},
    FactSpec{"rdma.nccl_gid_index_problems", T::list,
             "each such port: 'mlx5_0 port 1: GID 0 is IB/RoCE v1' / 'GID 7 is empty'"},
    // Affinity: GPUDirect RDMA is fastest between a GPU and a NIC behind one PCIe switch.
    FactSpec{"rdma.gpu_nic_affinity", T::list,
             "per GPU, its nearest HCA: 'GPU 0000:18:00.0 <-> mlx5_0 (same PCIe switch)', '(same NUMA node)', "
             "'(across NUMA nodes)'"},
};

constexpr std::span<const FactSpec> rdma_facts() { return k_rdma_facts; }

}  // namespace gd::catalog
