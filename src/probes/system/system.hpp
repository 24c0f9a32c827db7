#pragma once
#include "probes/probe.hpp"

namespace gd {
/// host.arch, host.kernel_release, host.uid.
void probe_system(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
