// Facts about the run itself: the machine and the user gpudoctor ran as (probes/system/system).
#include "core/catalog/sections.hpp"

namespace gd::catalog {
namespace {

using T = FactType;

constexpr FactSpec k_facts[] = {
    FactSpec{"host.arch", T::string, "machine architecture from uname (x86_64, aarch64)"},
    FactSpec{"host.kernel_release", T::string, "kernel release from uname"},
    FactSpec{"host.uid", T::integer, "effective user id gpudoctor ran as (0 = root)"},
    FactSpec{"host.name", T::string, "the host name from uname (replaced by --redact)"},
};

}  // namespace

std::span<const FactSpec> host_facts() { return k_facts; }

}  // namespace gd::catalog
