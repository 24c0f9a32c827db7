#pragma once
// The NVLink layer's facts: each GPU's links as NVML reports them (the CUDA helper's NVML thread
// asks, protocol 1.3; probes/cuda/nvml_nvlink records them) and what they add up to. A GPU whose
// NVML answers NOT_SUPPORTED has no NVLink (PCIe GPUs, a VM's GPU): its facts are absent, never a
// fault. The IMEX channel nodes of multi-node NVLink systems are read from /dev
// (probes/nvlink/imex_channels).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_nvlink_facts[] = {
    FactSpec{"nvlink.gpu.*.links", T::integer,
             "NVLink links NVML reports for the GPU (nvmlDeviceGetNvLinkState answered for them); absent when NVML says the GPU "
             "has no NVLink (NOT_SUPPORTED)"},
    FactSpec{"nvlink.gpu.*.links_up", T::integer, "of those, the active ones (state NVML_FEATURE_ENABLED)"},
    FactSpec{"nvlink.gpu.*.links_down", T::list, "the inactive links ('link 3'); empty when all are up"},
    FactSpec{"nvlink.gpu.*.version", T::string,
             "NVLink version of the active links ('4.0'), decoded from nvmlNvlinkVersion_t (4 = 3.0, 6 = 4.0, 7 = 5.0); the "
             "highest when the links differ"},
    FactSpec{"nvlink.gpu.*.remote_bus_ids", T::list, "the PCI bus ids at the far end of the active links (GPUs or NVSwitches), each once"},
    FactSpec{"nvlink.gpu.*.remote_kinds", T::list, "what the active links reach: 'GPU', 'NVSwitch' (nvmlDeviceGetNvLinkRemoteDeviceType)"},
    FactSpec{"nvlink.gpu.*.replay_errors", T::integer, "data-link transmit replays summed over the active links, since the driver loaded"},
    FactSpec{"nvlink.gpu.*.recovery_errors", T::integer, "data-link recoveries summed over the active links, since the driver loaded"},
    FactSpec{"nvlink.gpu.*.crc_flit_errors", T::integer, "flow-control digit CRC errors summed over the active links, since the driver loaded"},
    FactSpec{"nvlink.gpu.*.crc_data_errors", T::integer, "data CRC errors summed over the active links, since the driver loaded"},
    FactSpec{"nvlink.gpu.*.recovery_failed", T::integer,
             "link recoveries that failed and left the link down, summed over the links (Blackwell and later, whose NVML has "
             "no replay/recovery/CRC counters: field NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS)"},
    FactSpec{"nvlink.gpus_checked", T::integer, "GPUs whose NVLink NVML answered for (links or NOT_SUPPORTED)"},
    FactSpec{"nvlink.gpus_with_links", T::integer, "GPUs with at least one NVLink link; 0 on PCIe-only hosts"},
    FactSpec{"nvlink.links_per_gpu", T::integer, "links of each GPU that has NVLink, when they all have the same number"},
    FactSpec{"nvlink.max_links_up", T::integer, "the most active links any one GPU has"},
    FactSpec{"nvlink.version", T::string, "the highest NVLink version of any active link ('4.0')"},
    FactSpec{"nvlink.links_down", T::list,
             "every inactive link ('GPU 0 (00000000:18:00.0) link 3') on a host where some link is up; empty when all are up "
             "or no link is (bridgeless PCIe GPUs)"},
    FactSpec{"nvlink.gpus_fewer_links", T::list,
             "GPUs with fewer active links than another GPU of the host has ('GPU 3 (00000000:1B:00.0): 17 of 18 links up, "
             "link 7 down; other GPUs have 18 up'); empty with fewer than two NVLink GPUs; unknown while a GPU is in MIG mode "
             "(NVML reports a MIG GPU's links down, DCGM bug 200682374)"},
    FactSpec{"nvlink.gpus_fewer_links_gpus", T::list, "those GPUs' UUIDs (for nvidia-smi -i)"},
    FactSpec{"nvlink.error_links", T::list,
             "active links whose replay, recovery or CRC counters are not zero ('GPU 0 (00000000:18:00.0) link 3: 12 replay, "
             "4 CRC flit'), or whose recoveries failed (Blackwell); counted since the driver loaded"},
    FactSpec{"nvlink.error_links_gpus", T::list, "those GPUs' UUIDs (for nvidia-smi -i)"},
    FactSpec{"nvlink.imex.channels", T::list,
             "the IMEX channel nodes in /dev/nvidia-caps-imex-channels ('channel0'), character devices only, by number; "
             "absent when the folder does not exist (nothing creates it by default: the administrator does, after every "
             "reboot; probes/nvlink/imex_channels)"},
    FactSpec{"nvlink.imex.channel_count", T::integer, "how many there are; 0 when the folder does not exist"},
    FactSpec{"nvlink.imex.create_channel0", T::boolean,
             "CreateImexChannel0 of /proc/driver/nvidia/params (NVreg_CreateImexChannel0=1: the open kernel module makes "
             "channel 0 itself when it loads); absent where the driver has no such parameter"},
    FactSpec{"nvlink.imex.daemon_in_pod", T::boolean,
             "an nvidia-imex process runs in a Kubernetes pod (its /proc/PID/cgroup names kubepods): the IMEX daemon of a "
             "DRA ComputeDomain, whose channels the DRA driver hands to the job's containers through CDI; read only where "
             "service.imex.running is true"},
};

constexpr std::span<const FactSpec> nvlink_facts() { return k_nvlink_facts; }

}  // namespace gd::catalog
