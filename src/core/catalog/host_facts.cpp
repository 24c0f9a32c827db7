// Facts about the run itself and the allowlisted environment.
#include "core/catalog/sections.hpp"

namespace gd::catalog {
namespace {

using T = FactType;

constexpr FactSpec k_facts[] = {
    FactSpec{"host.arch", T::string, "machine architecture from uname (x86_64, aarch64)"},
    FactSpec{"host.kernel_release", T::string, "kernel release from uname"},
    FactSpec{"host.uid", T::integer, "effective user id gpudoctor ran as (0 = root)"},
    FactSpec{"host.name", T::string, "the host name from uname (replaced by --redact)"},
    FactSpec{"env.cuda_visible_devices", T::string, "CUDA_VISIBLE_DEVICES as set for the user (absent when unset)"},
    FactSpec{"env.ld_library_path", T::string, "LD_LIBRARY_PATH as set for the user"},
    FactSpec{"env.ld_preload", T::string, "LD_PRELOAD as set for the user"},
};

}  // namespace

std::span<const FactSpec> host_facts() { return k_facts; }

}  // namespace gd::catalog
