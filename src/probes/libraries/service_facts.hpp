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
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> service_facts() { return k_service_facts; }

}  // namespace gd::catalog
