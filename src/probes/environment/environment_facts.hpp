#pragma once
// The user's CUDA-relevant variables, allowlisted (probes/system/environment). The NVIDIA
// container toolkit's variables (env.nvidia_*) are the container layer's: probes/container/container_facts.hpp.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_environment_facts[] = {
    FactSpec{"env.cuda_visible_devices", T::string, "CUDA_VISIBLE_DEVICES as set for the user (absent when unset)"},
    FactSpec{"env.ld_library_path", T::string, "LD_LIBRARY_PATH as set for the user"},
    FactSpec{"env.ld_preload", T::string, "LD_PRELOAD as set for the user"},
    FactSpec{"env.nccl_ib_gid_index", T::string, "NCCL_IB_GID_INDEX as set for the user: the RoCE GID table entry NCCL uses (absent when unset)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> environment_facts() { return k_environment_facts; }

}  // namespace gd::catalog
