#include "probes/rdma/hca_scan.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>

#include <fmt/format.h>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_attribute = 256;  // every attribute read here is one short line

/// The text of one attribute; nullopt with a line in `unreadable` when it cannot be read (ENOENT
/// too unless `optional`: a port without a state file is not a port the kernel made).
std::optional<std::string> read_attribute(Host& host, const std::string& path, bool optional, std::vector<std::string>& unreadable) {
  auto text = host.read_file(path, k_max_attribute);
  if (text) return std::move(*text);
  if (text.error().code == ENOENT && optional) return std::nullopt;
  unreadable.push_back(fmt::format("{}: {}", path, unreadable_reason(text.error(), host)));
  return std::nullopt;
}

/// Reads and parses one attribute; content the parser refuses becomes an unreadable line quoting it.
template <typename Parse>
auto read_parsed(Host& host, const std::string& path, bool optional, std::vector<std::string>& unreadable, Parse parse)
    -> decltype(parse(std::string_view{})) {
  auto text = read_attribute(host, path, optional, unreadable);
  if (!text) return std::nullopt;
  auto value = parse(*text);
  if (!value) {
    std::string shown(trim_whitespace(std::string_view(*text).substr(0, 40)));
    unreadable.push_back(fmt::format("{}: unrecognised content '{}'{}", path, shown, text->size() > 40 ? "..." : ""));
  }
  return value;
}

/// fw_ver: a version, or an empty line from a driver that has no firmware string (EFA:
/// ib_get_device_fw_str leaves it empty), which is no version and nothing unreadable either.
std::optional<std::optional<std::string>> parse_firmware(std::string_view text) {
  if (text == "\n") return std::optional<std::string>();
  auto line = parse_short_line(text);
  if (!line) return std::nullopt;
  return line;
}

std::string_view basename_of(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<int> parse_numa(std::string_view text) {
  std::string_view value = trim_whitespace(text);
  bool negative = value.starts_with('-');
  if (negative) value.remove_prefix(1);
  if (value.empty() || value.size() > 4 || !all_digits(value)) return std::nullopt;
  int number = 0;
  std::from_chars(value.data(), value.data() + value.size(), number);
  return negative ? -number : number;
}

/// The PCI functions above the device: from the class entry's link (a symlink into
/// /sys/devices), else from its PCI function's entry in /sys/bus/pci/devices (a --root tree
/// copied without the class links).
std::optional<PciPath> read_pci_path(Host& host, const std::string& dir) {
  if (auto link = host.read_link(dir)) {
    if (auto path = parse_pci_path(*link)) return path;
  }
  auto device = host.read_link(dir + "/device");
  if (!device) return std::nullopt;  // a virtual device (rxe, siw) has no PCI function
  auto bus = basename_of(*device);
  auto link = host.read_link(fmt::format("/sys/bus/pci/devices/{}", bus));
  return link ? parse_pci_path(*link) : std::nullopt;
}

std::vector<int> port_numbers(const std::vector<std::string>& names) {
  std::vector<int> numbers;
  for (const std::string& name : names) {
    if (name.empty() || name.size() > 3 || !all_digits(name)) continue;
    numbers.push_back(std::stoi(name));
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

void scan_gids(Host& host, HcaPort& port, std::vector<std::string>& unreadable) {
  for (int index = 0; index < k_gid_scan; ++index) {
    GidLookup entry = read_gid(host, port, index);
    if (entry.missing) return;  // the table is shorter
    if (!entry.problem.empty()) {
      unreadable.push_back(entry.problem);
      continue;
    }
    if (!entry.empty) port.gids.push_back(GidEntry{index, entry.type});
  }
  port.gid_scan_cut = static_cast<bool>(host.stat(fmt::format("{}/gids/{}", port.dir, k_gid_scan)));
}

HcaPort read_port(Host& host, const std::string& hca_dir, int number, std::vector<std::string>& unreadable) {
  HcaPort port;
  port.number = number;
  port.dir = fmt::format("{}/ports/{}", hca_dir, number);
  port.state = read_parsed(host, port.dir + "/state", false, unreadable, parse_numbered_name);
  port.phys_state = read_parsed(host, port.dir + "/phys_state", false, unreadable, parse_numbered_name);
  port.link_layer = read_parsed(host, port.dir + "/link_layer", false, unreadable, parse_link_layer);
  port.rate = read_parsed(host, port.dir + "/rate", true, unreadable, parse_rate);
  if (port.roce()) scan_gids(host, port, unreadable);
  return port;
}

Hca read_hca(Host& host, const std::string& name, std::vector<std::string>& unreadable) {
  Hca hca;
  hca.name = name;
  const std::string dir = fmt::format("{}/{}", k_infiniband_class, name);
  hca.fw_ver = read_parsed(host, dir + "/fw_ver", true, unreadable, parse_firmware).value_or(std::nullopt);
  hca.hca_type = read_parsed(host, dir + "/hca_type", true, unreadable, parse_short_line);
  if (auto driver = host.read_link(dir + "/device/driver")) hca.driver = std::string(basename_of(*driver));
  hca.pci = read_pci_path(host, dir);
  if (auto numa = read_attribute(host, dir + "/device/numa_node", true, unreadable)) hca.numa_node = parse_numa(*numa);
  auto ports = host.list_dir(dir + "/ports");
  if (!ports) {
    unreadable.push_back(fmt::format("{}/ports: {}", dir,
                                     ports.error().code == ENOENT ? std::string("no ports folder") : unreadable_reason(ports.error(), host)));
    return hca;
  }
  for (int number : port_numbers(*ports)) {
    if (hca.ports.size() >= k_max_ports) break;
    hca.ports.push_back(read_port(host, dir, number, unreadable));
  }
  return hca;
}

}  // namespace

bool HcaPort::active() const {
  return state && phys_state && state->number == k_port_state_active && phys_state->number == k_phys_state_link_up;
}

bool HcaPort::down() const { return state && phys_state && !active(); }

HcaScan scan_hcas(Host& host) {
  HcaScan scan;
  auto names = host.list_dir(k_infiniband_class);
  if (!names) {
    // No folder: no RDMA core loaded, or a root without one: no HCAs either way.
    if (names.error().code != ENOENT && names.error().code != ENOTDIR) scan.unknown_reason = unreadable_reason(names.error(), host);
    return scan;
  }
  for (const std::string& name : *names) {
    if (scan.hcas.size() >= k_max_hcas) {
      scan.cut = true;
      break;
    }
    scan.hcas.push_back(read_hca(host, name, scan.unreadable));
  }
  return scan;
}

GidLookup read_gid(Host& host, const HcaPort& port, int index) {
  GidLookup out;
  const std::string gid_path = fmt::format("{}/gids/{}", port.dir, index);
  auto gid = host.read_file(gid_path, k_max_attribute);
  if (!gid) {
    out.missing = gid.error().code == ENOENT;
    out.problem = fmt::format("{}: {}", gid_path, out.missing ? std::string("no such entry") : unreadable_reason(gid.error(), host));
    return out;
  }
  auto zero = gid_is_zero(*gid);
  if (!zero) {
    out.problem = fmt::format("{}: unrecognised content '{}'", gid_path, trim_whitespace(std::string_view(*gid).substr(0, 40)));
    return out;
  }
  if (*zero) {
    out.empty = true;
    return out;
  }
  // The type of a filled entry; reading it fails for an empty one (the kernel has no attributes).
  const std::string type_path = fmt::format("{}/gid_attrs/types/{}", port.dir, index);
  auto type = host.read_file(type_path, k_max_attribute);
  if (type) out.type = parse_gid_type(*type);
  return out;
}

}  // namespace gd
