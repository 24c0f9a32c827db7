#pragma once
// The distribution and its C library (probes/system/services).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_system_facts[] = {
    // The distribution (os-release(5)).
    FactSpec{"system.os_id", T::string, "distribution id from os-release ID (ubuntu, rhel, nixos; linux when unset)"},
    FactSpec{"system.os_version", T::string, "os-release VERSION_ID (24.04)"},
    FactSpec{"system.os_like", T::string, "os-release ID_LIKE, the distributions this one derives from (debian)"},
    FactSpec{"system.os_pretty_name", T::string, "os-release PRETTY_NAME (Ubuntu 24.04.3 LTS)"},
    FactSpec{"system.is_nixos", T::boolean, "this is NixOS (os-release ID=nixos, or /etc/NIXOS)"},
    FactSpec{"system.is_wsl2", T::boolean, "running under WSL2 (/proc/version names a microsoft-standard kernel)"},
    // The C library programs (and libcuda) run on.
    FactSpec{"system.libc", T::string, "the host's C library: glibc, musl or none (from the loaders and the ldd script)"},
    FactSpec{"system.glibc_version", T::version, "glibc's version (2.39) from libc-2.NN.so, the ldd script or libc.so.6's banner"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> system_facts() { return k_system_facts; }

}  // namespace gd::catalog
