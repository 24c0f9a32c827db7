// The user's CUDA-relevant variables, allowlisted (probes/system/environment). The NVIDIA
// container toolkit's variables (env.nvidia_*) are the container layer's: container_facts.cpp.
#include "core/catalog/sections.hpp"

namespace gd::catalog {
namespace {

using T = FactType;

constexpr FactSpec k_facts[] = {
    FactSpec{"env.cuda_visible_devices", T::string, "CUDA_VISIBLE_DEVICES as set for the user (absent when unset)"},
    FactSpec{"env.ld_library_path", T::string, "LD_LIBRARY_PATH as set for the user"},
    FactSpec{"env.ld_preload", T::string, "LD_PRELOAD as set for the user"},
};

}  // namespace

std::span<const FactSpec> environment_facts() { return k_facts; }

}  // namespace gd::catalog
