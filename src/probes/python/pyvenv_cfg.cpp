#include "probes/python/pyvenv_cfg.hpp"

#include <cctype>

#include "util/text_split.hpp"

namespace gd {
namespace {

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::string> python_major_minor(std::string_view version) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i]))) ++i;
    return i > start;
  };
  if (!digits() || i >= version.size() || version[i] != '.') return std::nullopt;
  ++i;
  if (!digits()) return std::nullopt;
  return std::string(version.substr(0, i));
}

PyvenvConfig parse_pyvenv_cfg(std::string_view text) {
  PyvenvConfig config;
  for (std::string_view line : split_nonempty_lines(text)) {
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = lower(trim_whitespace(line.substr(0, eq)));
    std::string_view value = trim_whitespace(line.substr(eq + 1));
    if (key == "home") {
      config.home = std::string(value);
    } else if (key == "include-system-site-packages") {
      config.include_system_site = lower(value) == "true";
    } else if (key == "version" || key == "version_info") {
      if (auto mm = python_major_minor(value)) config.version = *mm;
    }
  }
  return config;
}

}  // namespace gd
