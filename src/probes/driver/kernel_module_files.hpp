#pragma once
// The nvidia.ko files installed for the running kernel under /lib/modules/<release>/, with the
// version, license and signature of the one modprobe would load, against the loaded module.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// "nvidia.ko", "nvidia.ko.xz", "nvidia.ko.zst", "nvidia.ko.gz": the compression ("", "xz",
/// "zst", "gz"), or nullopt when `name` is not the nvidia module's file.
std::optional<std::string> nvidia_module_compression(std::string_view name);

/// The paths (relative to /lib/modules/<release>/) of nvidia.ko* in a modules.dep text
/// ("updates/dkms/nvidia.ko.zst: kernel/..." lines), in file order.
std::vector<std::string> nvidia_modules_in_modules_dep(std::string_view text);

/// Where the nvidia.ko* files for kernel `release` are, most preferred first (depmod's search
/// order: updates, extra, the distribution's own folders, weak-updates). Bounded walk.
std::vector<std::string> find_nvidia_module_files(Host& host, std::string_view release);

/// kmod.nvidia.disk_* facts, kmod.nvidia.built_for_running_kernel, kmod.kernel_headers_installed
/// and kmod.nvidia.dkms_modules. Reads kmod.nvidia.loaded/version that the caller set before.
void record_module_files(Host& host, FactSet& facts);

}  // namespace gd
