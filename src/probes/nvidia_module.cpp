#include "probes/nvidia_module.hpp"

#include <cctype>
#include <cerrno>

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

void probe_nvidia_module(Host& host, const ProbeOptions&, FactSet& facts) {
  const std::string source(k_version_file);
  auto text = host.read_file(k_version_file, k_max_version_file);
  if (!text) {
    if (text.error().code == ENOENT) {
      facts.set("kmod.nvidia.loaded", false, source);
      facts.set_absent("kmod.nvidia.version", source);
      facts.set_absent("kmod.nvidia.flavor", source);
      return;
    }
    std::string reason = unreadable_reason(text.error(), host);
    facts.set_unknown("kmod.nvidia.loaded", reason, source);
    facts.set_unknown("kmod.nvidia.version", reason, source);
    facts.set_unknown("kmod.nvidia.flavor", reason, source);
    return;
  }
  facts.set("kmod.nvidia.loaded", true, source);
  auto parsed = parse_nvrm_version(*text);
  if (!parsed) {
    facts.set_unknown("kmod.nvidia.version", "unrecognised content (no 'NVRM version:' line with a version)", source);
    facts.set_unknown("kmod.nvidia.flavor", "unrecognised content", source);
    return;
  }
  facts.set("kmod.nvidia.version", parsed->version, source);
  facts.set("kmod.nvidia.flavor", parsed->flavor, source);
}

}  // namespace gd
