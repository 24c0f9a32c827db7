#include "probes/iommu/pci_topology.hpp"

#include <algorithm>
#include <cctype>

#include "util/text_split.hpp"

namespace gd {
namespace {

bool all_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

void add_once(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

bool is_pci_bus_id(std::string_view text) {
  // domain:bus:device.function, pci_name(): "%04x:%02x:%02x.%d".
  std::size_t first = text.find(':');
  if (first == std::string_view::npos || first < 4 || first > 8) return false;
  std::string_view rest = text.substr(first + 1);
  return rest.size() == 7 && all_hex(text.substr(0, first)) && all_hex(rest.substr(0, 2)) && rest[2] == ':' &&
         all_hex(rest.substr(3, 2)) && rest[5] == '.' && rest[6] >= '0' && rest[6] <= '7';
}

std::optional<std::vector<std::string>> pci_path_from_link(std::string_view link_target) {
  std::vector<std::string_view> parts = split_nonempty(link_target, '/');
  auto devices = std::find(parts.begin(), parts.end(), std::string_view("devices"));
  if (devices == parts.end()) return std::nullopt;
  std::vector<std::string> path;
  for (auto it = devices + 1; it != parts.end(); ++it) {
    // Host bridges ("pci0000:00", a VMD's "pci10000:e0") and platform folders are not functions.
    if (is_pci_bus_id(*it)) path.emplace_back(*it);
  }
  if (path.empty() || !is_pci_bus_id(parts.back())) return std::nullopt;
  return path;
}

BridgesBetween bridges_between(const std::vector<std::string>& path_a, const std::vector<std::string>& path_b) {
  BridgesBetween out;
  // The bridges are every function of a path but the last (the function itself).
  std::size_t bridges_a = path_a.empty() ? 0 : path_a.size() - 1;
  std::size_t bridges_b = path_b.empty() ? 0 : path_b.size() - 1;
  std::size_t common = 0;
  while (common < bridges_a && common < bridges_b && path_a[common] == path_b[common]) ++common;
  if (common == 0) {
    out.through_root_complex = true;
    for (std::size_t i = 0; i < bridges_a; ++i) add_once(out.bridges, path_a[i]);
    for (std::size_t i = 0; i < bridges_b; ++i) add_once(out.bridges, path_b[i]);
    return out;
  }
  // The deepest common bridge, then each side below it.
  add_once(out.bridges, path_a[common - 1]);
  for (std::size_t i = common; i < bridges_a; ++i) add_once(out.bridges, path_a[i]);
  for (std::size_t i = common; i < bridges_b; ++i) add_once(out.bridges, path_b[i]);
  return out;
}

}  // namespace gd
