#include "probes/kernel_log.hpp"

namespace gd {

void probe_kernel_log(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
