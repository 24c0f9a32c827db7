#pragma once
// /proc/modules: which kernel modules are loaded (kernel/module/procfs.c, one line per module).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// One line of /proc/modules: "nvidia_uvm 1830912 - - Live 0xffffffffc080c000 (O)".
struct LoadedModule {
  std::string name;  ///< "nvidia_uvm" (the kernel always prints underscores)
  std::uint64_t size = 0;
  std::string state;  ///< "Live", "Loading" or "Unloading"
};

/// Parses the text of /proc/modules; lines that do not have a name, a size and a state are skipped.
std::vector<LoadedModule> parse_proc_modules(std::string_view text);

/// The module called `name` ('-' and '_' are the same, as for modprobe), if listed.
std::optional<LoadedModule> find_module(const std::vector<LoadedModule>& modules, std::string_view name);

/// kmod.nvidia_uvm.loaded, kmod.nvidia_modeset.loaded, kmod.nvidia_drm.loaded,
/// kmod.nvidia_peermem.loaded, kmod.nouveau.loaded from /proc/modules. Returns the parsed list
/// (empty when unreadable) so the caller can cross-check kmod.nvidia.loaded.
std::optional<std::vector<LoadedModule>> record_loaded_modules(Host& host, FactSet& facts);

}  // namespace gd
