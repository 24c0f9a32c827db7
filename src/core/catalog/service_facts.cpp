// NVIDIA daemons, from /proc/*/comm (probes/system/services). The overview shows them on the
// driver libraries' line, and they are that layer's.
#include "core/catalog/sections.hpp"

namespace gd::catalog {
namespace {

using T = FactType;

constexpr FactSpec k_facts[] = {
    FactSpec{"service.persistenced.running", T::boolean, "nvidia-persistenced is running (unknown inside a container)"},
    FactSpec{"service.fabricmanager.running", T::boolean,
             "the NVSwitch fabric manager nv-fabricmanager is running (unknown inside a container)"},
};

}  // namespace

std::span<const FactSpec> service_facts() { return k_facts; }

}  // namespace gd::catalog
