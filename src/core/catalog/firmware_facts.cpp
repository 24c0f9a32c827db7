// GSP firmware files for the loaded module (probes/firmware).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> firmware_facts() { return {}; }

}  // namespace gd::catalog
