#pragma once
#include "probes/probe.hpp"

namespace gd {
/// env.cuda_visible_devices, env.ld_library_path, env.ld_preload (absent when unset).
void probe_environment(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
