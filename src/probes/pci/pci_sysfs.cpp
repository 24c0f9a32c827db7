#include "probes/pci/pci_sysfs.hpp"

#include "util/text_split.hpp"

#include <cctype>
#include <charconv>

namespace gd {
namespace {

}  // namespace

std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text) {
  text = trim_whitespace(text);
  if (text.size() < 3 || text.size() > 10 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    return std::nullopt;
  }
  text.remove_prefix(2);
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_sysfs_int(std::string_view text) {
  text = trim_whitespace(text);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> parse_link_speed(std::string_view text) {
  text = trim_whitespace(text);
  if (text.empty() || text.starts_with("Unknown") || text.find_first_of("\n\r") != std::string_view::npos) {
    return std::nullopt;
  }
  // "2.5 GT/s", "8 GT/s", "32.0 GT/s PCIe", "64.0 GT/s PCIe": a number, then "GT/s".
  if (!std::isdigit(static_cast<unsigned char>(text.front())) || text.find("GT/s") == std::string_view::npos) {
    return std::nullopt;
  }
  return std::string(text);
}

PciFunctionKind classify_pci_class(std::uint32_t class_code) {
  if ((class_code >> 16) == 0x03) {
    return PciFunctionKind::gpu;
  }
  if ((class_code >> 8) == 0x0680) {
    return PciFunctionKind::nvswitch;
  }
  return PciFunctionKind::other;
}

bool compatible_names_tegra(std::string_view compatible) {
  while (!compatible.empty()) {
    std::size_t end = compatible.find('\0');
    std::string_view entry = compatible.substr(0, end);
    if (entry.starts_with("nvidia,tegra")) {
      return true;
    }
    if (end == std::string_view::npos) break;
    compatible.remove_prefix(end + 1);
  }
  return false;
}

std::string_view link_basename(std::string_view target) {
  while (target.size() > 1 && target.back() == '/') target.remove_suffix(1);
  std::size_t slash = target.rfind('/');
  return slash == std::string_view::npos ? target : target.substr(slash + 1);
}

}  // namespace gd
