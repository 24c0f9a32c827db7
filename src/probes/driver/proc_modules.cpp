#include "probes/driver/proc_modules.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <array>
#include <cerrno>
#include <charconv>

namespace gd {
namespace {

constexpr std::string_view k_proc_modules = "/proc/modules";
// A busy host lists a few hundred modules of ~60 bytes each.
constexpr std::size_t k_max_proc_modules = 1024 * 1024;

// The modules whose presence the rules read, with their fact (issue 3: nvidia, nvidia_uvm,
// nvidia_modeset, nvidia_drm, nvidia_peermem, nouveau; nvidia itself is kmod.nvidia.loaded,
// decided from /proc/driver/nvidia/version by the caller).
struct WatchedModule {
  std::string_view module;
  FactName fact;
};
constexpr std::array k_watched = {
    WatchedModule{"nvidia_uvm", "kmod.nvidia_uvm.loaded"_fact},          // CUDA's unified memory: /dev/nvidia-uvm
    WatchedModule{"nvidia_modeset", "kmod.nvidia_modeset.loaded"_fact},  // display; needed by nvidia_drm
    WatchedModule{"nvidia_drm", "kmod.nvidia_drm.loaded"_fact},          // DRM/KMS for display servers
    WatchedModule{"nvidia_peermem", "kmod.nvidia_peermem.loaded"_fact},  // GPUDirect RDMA with InfiniBand
    WatchedModule{"nouveau", "kmod.nouveau.loaded"_fact},                // the in-kernel driver that blocks nvidia
};

std::string normalise_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '-') {
      c = '_';
    }
  }
  return out;
}

}  // namespace

std::vector<LoadedModule> parse_proc_modules(std::string_view text) {
  // kernel/module/procfs.c m_show(): "%s %u" name, size; then the reference count (or "-"
  // without CONFIG_MODULE_UNLOAD), the users ("-" when none), the state, the address, the taints.
  std::vector<LoadedModule> out;
  for (std::string_view line : split_lines(text)) {
    std::vector<std::string_view> words = split_words(line);
    if (words.size() < 5) {
      continue;
    }
    LoadedModule module;
    module.name = normalise_name(words[0]);
    auto [ptr, ec] = std::from_chars(words[1].data(), words[1].data() + words[1].size(), module.size);
    if (ec != std::errc() || ptr != words[1].data() + words[1].size()) {
      continue;
    }
    module.state = std::string(words[4]);
    if (module.state != "Live" && module.state != "Loading" && module.state != "Unloading") {
      continue;
    }
    out.push_back(std::move(module));
  }
  return out;
}

std::optional<LoadedModule> find_module(const std::vector<LoadedModule>& modules, std::string_view name) {
  std::string wanted = normalise_name(name);
  for (const LoadedModule& module : modules) {
    if (module.name == wanted) {
      return module;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<LoadedModule>> record_loaded_modules(Host& host, FactSet& facts) {
  const std::string source(k_proc_modules);
  auto text = host.read_file(k_proc_modules, k_max_proc_modules);
  if (!text) {
    // Without /proc/modules (a kernel without module support, or /proc not mounted) nothing
    // can be said about modules: unknown, not "not loaded".
    std::string reason = text.error().code == ENOENT ? std::string(
                                                           "no /proc/modules (kernel without loadable modules, or "
                                                           "/proc not mounted)")
                                                     : unreadable_reason(text.error(), host);
    for (const WatchedModule& watched : k_watched) {
      facts.set_unknown(watched.fact, reason, source);
    }
    return std::nullopt;
  }
  std::vector<LoadedModule> modules = parse_proc_modules(*text);
  for (const WatchedModule& watched : k_watched) {
    auto module = find_module(modules, watched.module);
    // A module that is still loading or already unloading is not usable.
    facts.set(watched.fact, module.has_value() && module->state == "Live", source);
  }
  return modules;
}

}  // namespace gd
