#pragma once
#include "probes/probe.hpp"

namespace gd {
/// Distribution, libc, nvidia-persistenced and fabric manager, NVSwitch presence.
void probe_services(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
