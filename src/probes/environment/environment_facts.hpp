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
    // NCCL's variables that the nccl layer checks against the host (probes/nccl), as NCCL sees them:
    // the environment's value, else the first of its configuration files that sets one
    // (probes/environment/nccl_conf): the fact's source says which ("env:NCCL_IB_HCA" or
    // "/etc/nccl.conf"). Absent when neither sets it.
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
    FactSpec{"env.nccl_conf.files", T::list,
             "the configuration files NCCL reads at its first call, in its order, with what each holds: "
             "'/home/alice/.nccl.conf: none', '/etc/nccl.conf: 2 NCCL setting(s)' ($NCCL_CONF_FILE in place of ~/.nccl.conf "
             "when set, as NCCL 2.23.4 and later do: older NCCL ignores it and reads ~/.nccl.conf; the home is the "
             "passwd entry of gpudoctor's uid, as NCCL's getpwuid(getuid()))"},
    FactSpec{"env.nccl_conf.settings", T::list,
             "every NCCL_* line of those files (other names are never read out), first of each name per file: "
             "'NCCL_SOCKET_IFNAME=eth2 (/etc/nccl.conf)', with '; not applied: the environment sets it' (or an "
             "earlier file does) where NCCL keeps another value; absent when no file exists"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> environment_facts() { return k_environment_facts; }

}  // namespace gd::catalog
