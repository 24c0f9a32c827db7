#include "probes/containers.hpp"

namespace gd {

void probe_containers(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
