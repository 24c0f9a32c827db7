#include "probes/pci.hpp"

namespace gd {

void probe_pci(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
