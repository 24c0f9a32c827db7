#pragma once
// Facts about the run itself: the machine and the user gpudoctor ran as (probes/system/system).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_host_facts[] = {
    FactSpec{"host.arch", T::string, "machine architecture from uname (x86_64, aarch64)"},
    FactSpec{"host.kernel_release", T::string, "kernel release from uname"},
    FactSpec{"host.uid", T::integer, "effective user id gpudoctor ran as (0 = root)"},
    FactSpec{"host.name", T::string, "the host name from uname (replaced by --redact)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> host_facts() { return k_host_facts; }

}  // namespace gd::catalog
