#pragma once
#include "probes/probe.hpp"

namespace gd {
/// GSP firmware for the loaded module version, searched in the kernel's order, and the file each GPU needs.
void probe_gsp_firmware(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
