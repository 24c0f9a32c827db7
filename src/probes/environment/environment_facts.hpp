#pragma once
// The user's CUDA-relevant variables, allowlisted (probes/system/environment). The NVIDIA
// container toolkit's variables (env.nvidia_*) are the container layer's: probes/container/container_facts.hpp.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_environment_facts[] = {
    FactSpec{"env.cuda_visible_devices", T::string, "CUDA_VISIBLE_DEVICES as set for the user (absent when unset)"},
    FactSpec{"env.ld_library_path", T::string, "LD_LIBRARY_PATH as set for the user"},
    FactSpec{"env.ld_preload", T::string, "LD_PRELOAD as set for the user"},
    // NCCL's variables that the nccl layer checks against the host (probes/nccl): absent when unset.
    FactSpec{"env.nccl_socket_ifname", T::string, "NCCL_SOCKET_IFNAME: the interfaces NCCL's sockets and bootstrap use"},
    FactSpec{"env.nccl_ib_hca", T::string, "NCCL_IB_HCA: the RDMA devices (HCAs) NCCL's IB transport uses"},
    FactSpec{"env.nccl_p2p_disable", T::string, "NCCL_P2P_DISABLE: non-zero turns off GPU peer-to-peer (NVLink, PCIe)"},
    FactSpec{"env.nccl_shm_disable", T::string, "NCCL_SHM_DISABLE: non-zero turns off the shared-memory transport"},
    FactSpec{"env.nccl_ib_disable", T::string, "NCCL_IB_DISABLE: non-zero turns off InfiniBand/RoCE (IP sockets instead)"},
    FactSpec{"env.nccl_nvls_enable", T::string, "NCCL_NVLS_ENABLE: 0 turns off NVLink SHARP on NVSwitch systems"},
    FactSpec{"env.nccl_p2p_level", T::string, "NCCL_P2P_LEVEL: the farthest topology distance NCCL uses peer-to-peer over"},
    FactSpec{"env.nccl_topo_file", T::string, "NCCL_TOPO_FILE: an XML topology file NCCL loads"},
    FactSpec{"env.nccl_debug", T::string, "NCCL_DEBUG: NCCL's log level (VERSION, WARN, INFO, TRACE)"},
    FactSpec{"env.nccl_ib_gid_index", T::string, "NCCL_IB_GID_INDEX as set for the user: the RoCE GID table entry NCCL uses (absent when unset)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> environment_facts() { return k_environment_facts; }

}  // namespace gd::catalog
