#include "probes/services.hpp"

namespace gd {

void probe_services(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
