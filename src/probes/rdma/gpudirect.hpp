#pragma once
// The GPUDirect RDMA provider: what lets an HCA read and write GPU memory, so that NCCL's network
// transport needs no copy through host memory (without one NCCL up to 2.12 logged "GPU Direct RDMA
// Disabled for HCA ... (no module)"; from 2.13 it says nothing: net_ib.cc ncclIbGetProperties).
// Four exist:
// - nvidia_peermem, shipped with the NVIDIA driver since R470 (/sys/module/nvidia_peermem);
// - nv_peer_mem, Mellanox's older module, a client of MLNX_OFED's peer-memory API, which creates
//   /sys/kernel/mm/memory_peers/nv_mem (NCCL's own check: src/transport/net_ib.cc);
// - efa_nv_peermem, AWS's peer-memory module for its Elastic Fabric Adapter (the EFA installer's;
//   UCX checks it beside nvidia_peermem, openucx/ucx#10966);
// - dma-buf: the kernel's buffer sharing (RDMA core since Linux 5.12, mlx5 first, EFA from 5.16),
//   which needs the open NVIDIA kernel module and no peer-memory module (NVIDIA GPU Operator's
//   GPUDirect RDMA page: "NVIDIA recommends using DMA-BUF when it is supported").
// NCCL's own InfiniBand transport (NET/IB) uses only ports whose link layer is InfiniBand or
// Ethernet (RoCE); an EFA port ("Unknown") is reached through the aws-ofi-nccl plugin and
// libfabric, which take GPU memory through dma-buf or efa_nv_peermem, never nvidia_peermem.

#include <optional>
#include <string>
#include <vector>

#include "probes/rdma/infiniband_sysfs.hpp"

namespace gd {

struct GpuDirectInputs {
  bool nvidia_peermem = false;
  bool nv_peer_mem = false;
  bool efa_nv_peermem = false;
  std::optional<std::string> module_flavor;   ///< kmod.nvidia.flavor: "open" or "proprietary"
  std::optional<KernelVersion> kernel;        ///< from host.kernel_release
  std::vector<std::string> hca_drivers;       ///< mlx5_core, efa, ...
};

/// Whether the dma-buf path's preconditions hold; nullopt (with `why`) when an input is unknown.
struct DmabufVerdict {
  std::optional<bool> possible;
  std::string why;  ///< "the proprietary NVIDIA kernel module exports no dma-buf", ...
};
DmabufVerdict dmabuf_possible(const GpuDirectInputs& inputs);

/// Whether an HCA driver imports dma-bufs for user memory registration (ibv_reg_dmabuf_mr, the
/// RDMA core's reg_user_mr_dmabuf): mlx5 since Linux 5.12 ("RDMA/mlx5: Support dma-buf based
/// userspace memory region"), EFA since 5.16 ("RDMA/efa: Add support for dmabuf memory regions").
/// bnxt_re (bnxt_en), irdma (ice, i40e) and mana_ib (mana) import them in later kernels whose
/// first release is not pinned here: `since` is nullopt for them, and the verdict undecided.
/// nullopt: a driver not known to import dma-bufs.
struct DmabufImporter {
  std::optional<KernelVersion> since;
};
std::optional<DmabufImporter> dmabuf_importer(std::string_view driver);

}  // namespace gd
