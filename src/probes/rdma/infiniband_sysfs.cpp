#include "probes/rdma/infiniband_sysfs.hpp"

#include <charconv>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_line = 64;

/// The file's one line: sysfs attributes end in one "\n"; a second line means it is not one.
std::optional<std::string_view> single_line(std::string_view text) {
  if (text.ends_with('\n')) text.remove_suffix(1);
  if (text.empty() || text.size() > k_max_line || text.find('\n') != std::string_view::npos) return std::nullopt;
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) return std::nullopt;
  }
  return text;
}

std::optional<int> small_number(std::string_view text) {
  if (text.empty() || text.size() > 4 || !all_digits(text)) return std::nullopt;
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

std::optional<NumberedName> parse_numbered_name(std::string_view text) {
  auto line = single_line(text);
  if (!line) return std::nullopt;
  std::size_t colon = line->find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  auto number = small_number(line->substr(0, colon));
  std::string_view name = line->substr(colon + 2);
  if (!number || name.empty() || trim_whitespace(name) != name) return std::nullopt;
  return NumberedName{*number, std::string(name)};
}

std::optional<std::string> parse_link_layer(std::string_view text) {
  auto line = single_line(text);
  if (!line || (*line != "InfiniBand" && *line != "Ethernet" && *line != "Unknown")) return std::nullopt;
  return std::string(*line);
}

std::optional<std::string> parse_rate(std::string_view text) {
  auto line = single_line(text);
  if (!line) return std::nullopt;
  std::size_t unit = line->find(" Gb/sec");
  if (unit == std::string_view::npos || unit == 0) return std::nullopt;
  std::string_view number = line->substr(0, unit);
  if (number.ends_with(".5")) number.remove_suffix(2);
  if (!small_number(number)) return std::nullopt;
  std::string_view rest = line->substr(unit + 7);
  // " (4X NDR)": the width and, but for SDR, the speed's name.
  if (!rest.empty() && !(rest.starts_with(" (") && rest.ends_with(')'))) return std::nullopt;
  return std::string(*line);
}

std::optional<std::string> parse_short_line(std::string_view text) {
  auto line = single_line(text);
  if (!line || trim_whitespace(*line).empty()) return std::nullopt;
  return std::string(trim_whitespace(*line));
}

std::optional<GidType> parse_gid_type(std::string_view text) {
  auto line = single_line(text);
  if (!line) return std::nullopt;
  if (*line == "RoCE v2") return GidType::roce_v2;
  if (*line == "IB/RoCE v1") return GidType::ib_roce_v1;
  return std::nullopt;
}

std::string_view to_string(GidType type) { return type == GidType::roce_v2 ? "RoCE v2" : "IB/RoCE v1"; }

std::optional<bool> gid_is_zero(std::string_view text) {
  auto line = single_line(text);
  if (!line || line->size() != 39) return std::nullopt;
  bool zero = true;
  for (std::size_t i = 0; i < line->size(); ++i) {
    char c = (*line)[i];
    if (i % 5 == 4) {
      if (c != ':') return std::nullopt;
    } else if (!is_hex_digit(c)) {
      return std::nullopt;
    } else if (c != '0') {
      zero = false;
    }
  }
  return zero;
}

std::string_view to_string(Closeness closeness) {
  switch (closeness) {
    case Closeness::same_switch: return "same PCIe switch";
    case Closeness::same_root: return "same PCIe root complex";
    case Closeness::same_numa: return "same NUMA node";
    case Closeness::across_numa: return "across NUMA nodes";
    case Closeness::unknown_numa: return "no common PCIe switch, NUMA node unknown";
  }
  return "unknown";
}

Closeness closeness(const PciPath& gpu, std::optional<int> gpu_numa, const PciPath& nic, std::optional<int> nic_numa) {
  if (gpu.root == nic.root) {
    // Common functions above both devices (the devices themselves excluded): the root port, then
    // a switch's upstream port. Two of them means a bridge below the root port that both share.
    std::size_t common = 0;
    while (common + 1 < gpu.chain.size() && common + 1 < nic.chain.size() && gpu.chain[common] == nic.chain[common]) ++common;
    return common >= 2 ? Closeness::same_switch : Closeness::same_root;
  }
  bool known = gpu_numa && nic_numa && *gpu_numa >= 0 && *nic_numa >= 0;
  if (!known) return Closeness::unknown_numa;
  return *gpu_numa == *nic_numa ? Closeness::same_numa : Closeness::across_numa;
}

std::optional<KernelVersion> parse_kernel_release(std::string_view release) {
  std::size_t dot = release.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::size_t end = dot + 1;
  while (end < release.size() && release[end] >= '0' && release[end] <= '9') ++end;
  auto major = small_number(release.substr(0, dot));
  auto minor = small_number(release.substr(dot + 1, end - dot - 1));
  if (!major || !minor) return std::nullopt;
  return KernelVersion{*major, *minor};
}

}  // namespace gd
