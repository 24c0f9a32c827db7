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

/// kmod.nvidia.loaded, kmod.nvidia.version, kmod.nvidia.flavor.
void probe_nvidia_module(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
