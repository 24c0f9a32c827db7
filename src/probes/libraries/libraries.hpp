#pragma once
#include "probes/probe.hpp"

namespace gd {
/// The dynamic loader's view: ld.so.cache, ld.so.conf, search paths, every libcuda/libnvidia-ml/
/// libcudart copy, and the predicted file for dlopen("libcuda.so.1") and "libnvidia-ml.so.1"
/// (lib.* facts). Reads env.ld_library_path/env.ld_preload, host.arch and kmod.nvidia.version
/// from the earlier probes; the CUDA helper, which runs later, reports what really loaded.
void probe_libraries(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
