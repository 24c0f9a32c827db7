// Distribution, libc, NVIDIA services (probes/services).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> system_facts() { return {}; }

}  // namespace gd::catalog
