// Facts about the NVIDIA kernel module (probes/nvidia_module).
#include "core/catalog/sections.hpp"

namespace gd::catalog {
namespace {

using T = FactType;

constexpr FactSpec k_facts[] = {
    FactSpec{"kmod.nvidia.loaded", T::boolean, "/proc/driver/nvidia exists: the nvidia kernel module is loaded"},
    FactSpec{"kmod.nvidia.version", T::version, "version of the loaded nvidia module (/proc/driver/nvidia/version)"},
    FactSpec{"kmod.nvidia.flavor", T::string, "'open' or 'proprietary' kernel module (from the NVRM version line)"},
};

}  // namespace

std::span<const FactSpec> driver_facts() { return k_facts; }

}  // namespace gd::catalog
