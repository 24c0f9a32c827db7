#pragma once
// The overview's words for the GPU code of a CUDA library (torch's libtorch_cuda.so, an
// --extension): the architectures that cover it apart from those in only a few of its fat
// binaries (probes/python/gpu_code_coverage.hpp defines both), so that the list reads as what the
// library is built for, as torch.cuda.get_arch_list() prints it.

#include <optional>
#include <string>
#include <string_view>

#include "core/fact_set.hpp"

namespace gd::areas {

/// "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 (in all 444 fat binaries); also in a few: sm_89 (1),
/// sm_90a (4)" for the library whose facts start with `prefix` ("torch.", "ext.0."); nullopt
/// when its coverage facts are not present (the caller prints <prefix>sass, the union).
std::optional<std::string> gpu_code_text(const FactSet& facts, std::string_view prefix);

}  // namespace gd::areas
