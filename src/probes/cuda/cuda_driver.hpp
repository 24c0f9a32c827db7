#pragma once
#include "probes/cuda/helper_reply.hpp"
#include "probes/probe.hpp"

namespace gd {

/// Runs the CUDA helper (libcuda + NVML in an isolated process) and records cuda.* and nvml.*
/// facts. When the first run fails and the user's environment sets LD_LIBRARY_PATH, LD_PRELOAD
/// or CUDA_VISIBLE_DEVICES, it runs once more without them (cuda.clean_env.*).
void probe_cuda_driver(Host& host, const ProbeOptions& options, FactSet& facts);

/// The helper run probe_cuda_driver starts with (the user's environment, --libcuda, --libnvml,
/// --cuda-timeout). collect_facts starts it before the first probe, so that libcuda's work
/// (cuInit, contexts, the kernels) overlaps the host probes; the CUDA probe then collects it.
HelperRequest first_helper_request(const ProbeOptions& options);

/// "13.0" for 13000 (cuDriverGetVersion encodes 1000*major + 10*minor).
std::string cuda_version_text(int encoded);

}  // namespace gd
