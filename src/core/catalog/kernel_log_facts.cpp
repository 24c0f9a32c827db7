// NVIDIA driver messages in the kernel log (probes/kernel_log).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> kernel_log_facts() { return {}; }

}  // namespace gd::catalog
