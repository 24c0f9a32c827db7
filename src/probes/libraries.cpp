#include "probes/libraries.hpp"

namespace gd {

void probe_libraries(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
