#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "probes/probe.hpp"

namespace gd {

/// The first line of /proc/driver/nvidia/version, taken apart.
struct NvrmVersion {
  std::string version;  ///< "580.159.04"
  std::string flavor;   ///< "open" or "proprietary"
  std::string arch;     ///< "x86_64", "aarch64" (may be empty)
};

/// Parses the text of /proc/driver/nvidia/version (kernel-open/nvidia/nv-procfs.c prints
/// "NVRM version: <build id>"; open builds say "Open Kernel Module", proprietary ones not).
std::optional<NvrmVersion> parse_nvrm_version(std::string_view text);

/// The kernel side of the driver: kmod.* (loaded modules, the loaded nvidia module's version,
/// flavour, parameters and GPUs, the module files on disk), modprobe.* and secureboot.*.
/// Each part lives in its own file (proc_modules, nvidia_gpu_info, kernel_module_files,
/// modprobe_config, secure_boot); this function only calls them in order.
void probe_nvidia_module(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
