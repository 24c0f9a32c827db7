#pragma once
#include "probes/probe.hpp"

namespace gd {
/// The dynamic loader's view: ld.so.cache, ld.so.conf, search paths, every libcuda/libnvidia-ml/libcudart copy.
void probe_libraries(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
