#pragma once
// The GPUDirect RDMA provider: what lets an HCA read and write GPU memory, so that NCCL's network
// transport needs no copy through host memory (NCCL logs "GPU Direct RDMA Disabled for HCA"
// otherwise). Three exist:
// - nvidia_peermem, shipped with the NVIDIA driver since R470 (/sys/module/nvidia_peermem);
// - nv_peer_mem, Mellanox's older module, a client of MLNX_OFED's peer-memory API, which creates
//   /sys/kernel/mm/memory_peers/nv_mem (NCCL's own check: src/transport/net_ib.cc);
// - dma-buf: the kernel's buffer sharing (RDMA core since Linux 5.12, mlx5 first), which needs the
//   open NVIDIA kernel module and no peer-memory module (NVIDIA GPU Operator's GPUDirect RDMA page:
//   "NVIDIA recommends using DMA-BUF when it is supported").

#include <optional>
#include <string>
#include <vector>

#include "probes/rdma/infiniband_sysfs.hpp"

namespace gd {

struct GpuDirectInputs {
  bool nvidia_peermem = false;
  bool nv_peer_mem = false;
  std::optional<std::string> module_flavor;   ///< kmod.nvidia.flavor: "open" or "proprietary"
  std::optional<KernelVersion> kernel;        ///< from host.kernel_release
  std::vector<std::string> hca_drivers;       ///< mlx5_core, ...
};

/// Whether the dma-buf path's preconditions hold; nullopt (with `why`) when an input is unknown.
struct DmabufVerdict {
  std::optional<bool> possible;
  std::string why;  ///< "the proprietary NVIDIA kernel module exports no dma-buf", ...
};
DmabufVerdict dmabuf_possible(const GpuDirectInputs& inputs);

/// HCA drivers that import dma-bufs for user memory registration (ibv_reg_dmabuf_mr): mlx5 since
/// Linux 5.12 (commit "RDMA/mlx5: Support dma-buf based userspace memory region").
bool driver_imports_dmabuf(std::string_view driver);

}  // namespace gd
