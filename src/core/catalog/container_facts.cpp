// cgroups, container runtime, NVIDIA container variables, hypervisor (probes/containers).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> container_facts() { return {}; }

}  // namespace gd::catalog
