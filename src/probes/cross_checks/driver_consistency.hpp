#pragma once
// The kernel module and the user-space driver (libcuda, libnvidia-ml) are one release in two
// halves. After every probe ran, this compares the loaded module's version with the version of
// the libraries that were (or would be) loaded.

#include <optional>
#include <string>
#include <string_view>

#include "probes/probe.hpp"

namespace gd {

/// The driver version in a library file name: "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"
/// -> "580.159.04". Nullopt for names without a full version ("libcuda.so.1", "libcuda.so").
std::optional<std::string> library_version_from_path(std::string_view path);

/// kmod.nvidia.userspace_mismatch from kmod.nvidia.version and the libraries' facts
/// (cuda.libcuda.path, nvml.path from the helper; lib.libcuda.resolved_real/_version,
/// lib.libnvidia_ml.resolved_version from the loader's predicted resolution). Copies of
/// cuda-compat (forward compatibility, meant to differ) and toolkit stubs are left out.
/// Reads facts only, never the host.
void probe_driver_consistency(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
