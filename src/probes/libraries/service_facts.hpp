#pragma once
// NVIDIA daemons, from /proc/*/comm (probes/system/services). The overview shows them on the
// driver libraries' line, and they are that layer's.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_service_facts[] = {
    FactSpec{"service.persistenced.running", T::boolean, "nvidia-persistenced is running (unknown inside a container)"},
    FactSpec{"service.fabricmanager.running", T::boolean,
             "the NVSwitch fabric manager nv-fabricmanager is running (unknown inside a container)"},
    FactSpec{"service.imex.running", T::boolean,
             "the IMEX daemon nvidia-imex (nvidia-imex.service) is running: it shares GPU memory between the nodes of a "
             "multi-node NVLink domain (GB200/GB300 NVL); unknown inside a container"},
    // The fabric manager beyond "it runs" (probes/system/fabric_manager).
    FactSpec{"service.fabricmanager.started_s", T::integer,
             "when the running nv-fabricmanager started, in seconds after boot (/proc/PID/stat starttime); absent when "
             "none runs, unknown inside a container"},
    FactSpec{"service.fabricmanager.started", T::string, "the same as a UTC time ('2026-12-06 08:12:03 UTC', /proc/stat btime)"},
    FactSpec{"service.fabricmanager.older_cuda_processes", T::list,
             "processes that hold a GPU through CUDA (an open /dev/nvidiaN and /dev/nvidia-uvm) and started before the "
             "running nv-fabricmanager: 'pid 4242 (python3) since 2026-12-06 07:55:10 UTC, 17 min before the fabric "
             "manager', oldest first, at most 8; nvidia-persistenced, nv-hostengine and nvidia-imex are not counted; "
             "unknown when their open files cannot be read (only root sees other users')"},
    FactSpec{"service.fabricmanager.restarted_under_cuda_processes", T::boolean,
             "the running nv-fabricmanager started after processes that use the GPUs through CUDA (a restart under "
             "running jobs: NVIDIA/nccl#976); absent when none runs"},
    FactSpec{"service.fabricmanager.version", T::version,
             "the version nv-fabricmanager last started as: its log's last 'Fabric Manager version X is running' line "
             "(/var/log/fabricmanager.log, last 1 MiB); absent without that log"},
    FactSpec{"service.fabricmanager.version_mismatch", T::string,
             "'nv-fabricmanager 580.65.06 (its last start in /var/log/fabricmanager.log) against the loaded nvidia.ko "
             "580.95.05' when the two differ (Fabric Manager stops at start then); absent when they match or there is "
             "no log"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> service_facts() { return k_service_facts; }

}  // namespace gd::catalog
