#include "probes/system/os_release.hpp"

#include <cctype>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_fields = 256;  // real files have about 20

bool valid_key(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front()))) {
    return false;
  }
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return false;
    }
  }
  return true;
}

/// The value as a shell would read it: one quoted or unquoted word (os-release(5): "Variable
/// assignment values must be enclosed in double or single quotes if they include spaces,
/// semicolons or other special characters outside of A–Z, a–z, 0–9").
std::string unquote(std::string_view raw) {
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r')) {
    raw.remove_suffix(1);
  }
  if (raw.size() >= 2 && raw.front() == '\'' && raw.back() == '\'') {
    return std::string(raw.substr(1, raw.size() - 2));
  }
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
    std::string out;
    std::string_view inner = raw.substr(1, raw.size() - 2);
    for (std::size_t i = 0; i < inner.size(); ++i) {
      char c = inner[i];
      if (c == '\\' && i + 1 < inner.size() && std::string_view("\"\\$`").find(inner[i + 1]) != std::string_view::npos) {
        out += inner[++i];
      } else {
        out += c;
      }
    }
    return out;
  }
  return std::string(raw);
}

}  // namespace

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> fields;
  for (std::string_view line : split_lines(text)) {
    if (fields.size() >= k_max_fields) {
      break;
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    if (line.empty() || line.front() == '#') {
      continue;
    }
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || !valid_key(line.substr(0, eq))) {
      continue;
    }
    fields[std::string(line.substr(0, eq))] = unquote(line.substr(eq + 1));
  }
  return fields;
}

}  // namespace gd
