#include "probes/firmware.hpp"

namespace gd {

void probe_gsp_firmware(Host&, const ProbeOptions&, FactSet&) {}

}  // namespace gd
