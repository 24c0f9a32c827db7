#include "probes/driver/nvidia_module.hpp"

#include <cctype>
#include <cerrno>

#include "core/fact_key.hpp"
#include "probes/shared/gpu_support.hpp"
#include "probes/driver/kernel_module_files.hpp"
#include "probes/driver/modprobe_config.hpp"
#include "probes/shared/nvidia_gpu_info.hpp"
#include "probes/driver/proc_modules.hpp"
#include "probes/driver/secure_boot.hpp"

namespace gd {
namespace {

constexpr std::string_view k_version_file = "/proc/driver/nvidia/version";
constexpr std::size_t k_max_version_file = 64 * 1024;

bool is_driver_version(std::string_view word) {
  // 580.159.04, 550.54.14, 470.256.02: digits and dots, at least one dot.
  if (word.empty() || !std::isdigit(static_cast<unsigned char>(word[0]))) {
    return false;
  }
  bool has_dot = false;
  for (char c : word) {
    if (c == '.') {
      has_dot = true;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return has_dot;
}

}  // namespace

std::optional<NvrmVersion> parse_nvrm_version(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  constexpr std::string_view k_prefix = "NVRM version:";
  if (!line.starts_with(k_prefix)) {
    return std::nullopt;
  }
  line.remove_prefix(k_prefix.size());
  NvrmVersion out;
  out.flavor = line.find("Open Kernel Module") != std::string_view::npos ? "open" : "proprietary";
  // Words are separated by runs of spaces; the version is the first dotted number, the
  // architecture follows "for" (open) or "UNIX" (proprietary: "NVIDIA UNIX x86_64 Kernel Module").
  std::string_view previous;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && std::isspace(static_cast<unsigned char>(line[pos]))) ++pos;
    std::size_t end = pos;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    std::string_view word = line.substr(pos, end - pos);
    if (!word.empty()) {
      if (out.version.empty() && is_driver_version(word)) {
        out.version = std::string(word);
      }
      if (out.arch.empty() && (previous == "for" || previous == "UNIX") && (word == "x86_64" || word == "aarch64" ||
                                                                            word == "ppc64le")) {
        out.arch = std::string(word);
      }
      previous = word;
    }
    pos = end;
  }
  if (out.version.empty()) {
    return std::nullopt;
  }
  return out;
}

namespace {

constexpr std::string_view k_sysfs_version = "/sys/module/nvidia/version";

/// The bare version in /sys/module/<module>/version (MODULE_VERSION), trimmed.
std::optional<std::string> read_sysfs_version(Host& host, FactSet& facts) {
  const std::string source(k_sysfs_version);
  auto text = host.read_file(k_sysfs_version, 256);
  if (!text) {
    if (text.error().code == ENOENT) {
      facts.set_absent("kmod.nvidia.sysfs_version"_fact, source, "the nvidia module is not loaded");
    } else {
      facts.set_unknown("kmod.nvidia.sysfs_version"_fact, unreadable_reason(text.error(), host), source);
    }
    return std::nullopt;
  }
  std::string_view version = *text;
  while (!version.empty() && (version.back() == '\n' || version.back() == ' ' || version.back() == '\r')) {
    version.remove_suffix(1);
  }
  if (!is_driver_version(version)) {
    facts.set_unknown("kmod.nvidia.sysfs_version"_fact, "unrecognised content", source);
    return std::nullopt;
  }
  facts.set("kmod.nvidia.sysfs_version"_fact, std::string(version), source);
  return std::string(version);
}

/// kmod.nvidia.loaded/version/flavor from /proc/driver/nvidia/version. When that file is missing
/// but /proc/modules lists nvidia (a /proc/driver that a container hides), the module is loaded
/// and its version comes from sysfs.
void record_nvrm_version(Host& host, FactSet& facts, const std::optional<std::vector<LoadedModule>>& modules,
                         const std::optional<std::string>& sysfs_version) {
  const std::string source(k_version_file);
  auto text = host.read_file(k_version_file, k_max_version_file);
  if (!text) {
    if (text.error().code == ENOENT) {
      auto listed = modules ? find_module(*modules, "nvidia") : std::nullopt;
      if (listed && listed->state == "Live") {
        facts.set("kmod.nvidia.loaded"_fact, true, "/proc/modules");
        if (sysfs_version) {
          facts.set("kmod.nvidia.version"_fact, *sysfs_version, std::string(k_sysfs_version));
        } else {
          facts.set_unknown("kmod.nvidia.version"_fact, "listed in /proc/modules, but no /proc/driver/nvidia/version",
                            source);
        }
        facts.set_unknown("kmod.nvidia.flavor"_fact, "no /proc/driver/nvidia/version", source);
        return;
      }
      // Neither file: a tree whose /proc is not mounted (a mounted filesystem, `mount --bind /`)
      // says nothing about the module, which is not "not loaded".
      if (!modules) {
        const std::string reason = "no /proc/driver/nvidia/version and no /proc/modules: /proc is not mounted here";
        for (FactName name : {"kmod.nvidia.loaded"_fact, "kmod.nvidia.version"_fact, "kmod.nvidia.flavor"_fact}) {
          facts.set_unknown(name, reason, source);
        }
        return;
      }
      facts.set("kmod.nvidia.loaded"_fact, false, source);
      facts.set_absent("kmod.nvidia.version"_fact, source);
      facts.set_absent("kmod.nvidia.flavor"_fact, source);
      return;
    }
    std::string reason = unreadable_reason(text.error(), host);
    facts.set_unknown("kmod.nvidia.loaded"_fact, reason, source);
    facts.set_unknown("kmod.nvidia.version"_fact, reason, source);
    facts.set_unknown("kmod.nvidia.flavor"_fact, reason, source);
    return;
  }
  facts.set("kmod.nvidia.loaded"_fact, true, source);
  auto parsed = parse_nvrm_version(*text);
  if (!parsed) {
    facts.set_unknown("kmod.nvidia.version"_fact, "unrecognised content (no 'NVRM version:' line with a version)", source);
    facts.set_unknown("kmod.nvidia.flavor"_fact, "unrecognised content", source);
    return;
  }
  facts.set("kmod.nvidia.version"_fact, parsed->version, source);
  facts.set("kmod.nvidia.flavor"_fact, parsed->flavor, source);
}

}  // namespace

void probe_nvidia_module(Host& host, const ProbeOptions&, FactSet& facts) {
  // Order matters: the module files are compared with the loaded version.
  auto modules = record_loaded_modules(host, facts);
  auto sysfs_version = read_sysfs_version(host, facts);
  record_nvrm_version(host, facts, modules, sysfs_version);
  record_nvidia_params(host, facts);
  record_gpu_information(host, facts);
  record_module_files(host, facts);
  record_gpu_support(facts);  // needs the module's version (loaded or on disk) and GPU list
  record_modprobe_config(host, facts);
  record_secure_boot(host, facts);
  record_module_sig_enforcement(host, facts);
}

}  // namespace gd
