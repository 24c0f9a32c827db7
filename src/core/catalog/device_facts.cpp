// NVIDIA device nodes under /dev (probes/device_nodes).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> device_facts() { return {}; }

}  // namespace gd::catalog
