#pragma once
#include "probes/probe.hpp"

namespace gd {
/// /dev/nvidia* nodes: type, major:minor against /proc/devices, mode and owner, a non-blocking open.
void probe_device_nodes(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
