// The dynamic loader's view of libcuda, libnvidia-ml and libcudart (probes/libraries).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> library_facts() { return {}; }

}  // namespace gd::catalog
