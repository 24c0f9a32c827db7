#include "probes/device_nodes.hpp"

namespace gd {

void probe_device_nodes(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
