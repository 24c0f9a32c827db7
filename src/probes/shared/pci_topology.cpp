#include "probes/shared/pci_topology.hpp"

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

bool is_host_bridge(std::string_view text) {
  // pci_create_root_bus(): "pci%04x:%02x" (domain, bus).
  if (!text.starts_with("pci")) return false;
  text.remove_prefix(3);
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon < 4 || colon > 8) return false;
  std::string_view bus = text.substr(colon + 1);
  return bus.size() == 2 && all_hex(text.substr(0, colon)) && all_hex(bus);
}

std::optional<PciPath> parse_pci_path(std::string_view sysfs_path) {
  std::vector<std::string_view> parts = split_nonempty(sysfs_path, '/');
  auto devices = std::find(parts.begin(), parts.end(), std::string_view("devices"));
  if (devices == parts.end()) return std::nullopt;
  PciPath path;
  for (auto it = devices + 1; it != parts.end(); ++it) {
    if (path.root.empty()) {
      // Platform folders may stand above the host bridge (an ARM SoC's PCIe controller).
      if (is_host_bridge(*it)) path.root = std::string(*it);
    } else if (is_pci_bus_id(*it)) {
      path.chain.emplace_back(*it);
    } else if (!is_host_bridge(*it) || path.chain.empty()) {
      break;  // "infiniband", "mlx5_0", "driver": past the function
    }
  }
  if (path.root.empty() || path.chain.empty()) return std::nullopt;
  return path;
}

std::optional<std::vector<std::string>> pci_path_from_link(std::string_view link_target) {
  auto path = parse_pci_path(link_target);
  std::vector<std::string_view> parts = split_nonempty(link_target, '/');
  if (!path || parts.empty() || path->chain.back() != parts.back()) return std::nullopt;
  return std::move(path->chain);
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
