#include "probes/nccl/nccl_probe.hpp"

#include <algorithm>
#include <cerrno>
#include <set>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/nccl/nccl_copies.hpp"
#include "probes/nccl/nccl_env_check.hpp"
#include "probes/nccl/nccl_gpu_minimums.hpp"
#include "probes/nccl/nccl_version_text.hpp"
#include "util/text_split.hpp"
#include "probes/nccl/net_routes.hpp"

namespace gd {
namespace {

constexpr std::string_view k_net_class = "/sys/class/net";
constexpr std::string_view k_routes = "/proc/net/route";
constexpr std::size_t k_max_route_file = 4 << 20;  // ~128 bytes a route: 32,000 routes
constexpr std::size_t k_topo_probe_bytes = 4096;    // enough to tell that it can be read
constexpr std::int64_t k_max_gpus = 1024;

std::optional<std::string> env_of(const FactSet& facts, FactName name) { return facts.get_string(name); }

/// Where NCCL takes a variable's value from: "the environment", or the configuration file the
/// environment layer found it in (its fact's source, probes/environment/nccl_conf); nullopt when unset.
std::optional<std::string> set_in(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  if (!fact || fact->state != FactState::present) return std::nullopt;
  // The files are absolute paths (a relative NCCL_CONF_FILE is not read); anything else is the environment's.
  if (fact->source.starts_with('/')) return fact->source;
  return std::string("the environment");
}

/// nccl.<what>.set_in for a variable: present where it is set, absent where not.
void set_origin_fact(const FactSet& env_facts, FactName variable, FactName fact, std::string_view name, FactSet& facts) {
  if (auto origin = set_in(env_facts, variable)) {
    facts.set(fact, *origin, env_facts.find(variable)->source);
  } else {
    facts.set_absent(fact, "env:" + std::string(name), std::string(name) + " is not set");
  }
}

/// What an input fact's state says when it is not present: its reason, or that it was not made.
std::string missing_reason(const FactSet& facts, FactName name, std::string_view label) {
  const Fact* fact = facts.find(name);
  if (!fact) return std::string(label) + " not collected";
  return std::string(label) + ": " + (fact->reason.empty() ? std::string(to_string(fact->state)) : fact->reason);
}

void set_copy_facts(Host& host, FactSet& facts, std::vector<NcclCopy>& copies_out) {
  const std::string source = "py.dists, torch.path, lib.libnccl.resolved";
  CopiesFound found = find_nccl_copies(host, facts);
  std::vector<std::string> lines;
  std::set<std::string, std::less<>> versions;
  for (const NcclCopy& copy : found.copies) {
    lines.push_back(copy_text(copy));
    if (!copy.version.empty()) versions.insert(copy.version);
  }
  std::vector<std::string> sorted(versions.begin(), versions.end());
  std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return compare_releases(a, b) < 0; });
  facts.set("nccl.libraries"_fact, lines, source);
  facts.set("nccl.versions"_fact, sorted, source);
  if (!found.incomplete.empty()) {
    facts.set_unknown("nccl.count"_fact, "the search is incomplete: " + found.incomplete, source);
    facts.set_unknown("nccl.version"_fact, "the search is incomplete: " + found.incomplete, source);
    facts.set_unknown("nccl.loaded_copy"_fact, "the search is incomplete: " + found.incomplete, source);
    copies_out = std::move(found.copies);
    return;
  }
  facts.set("nccl.count"_fact, static_cast<std::int64_t>(found.copies.size()), source);

  LoadContext context;
  context.torch_installed = facts.get_bool("torch.installed"_fact);
  context.torch_cpu_only = facts.get_bool("torch.cpu_only"_fact) == true;
  context.resolved_via = facts.get_string("lib.libnccl.resolved_via"_fact).value_or("none");
  LoadedChoice choice = choose_loaded_copy(found.copies, context);
  if (choice.index) {
    const NcclCopy& copy = found.copies[*choice.index];
    facts.set("nccl.loaded_copy"_fact, copy_text(copy), source);
    if (copy.version.empty()) {
      facts.set_unknown("nccl.version"_fact, copy.why_unknown, copy.real_path);
    } else {
      facts.set("nccl.version"_fact, copy.version, copy.real_path);
    }
  } else if (!choice.absent_reason.empty()) {
    facts.set_absent("nccl.version"_fact, source, choice.absent_reason);
    facts.set_absent("nccl.loaded_copy"_fact, source, choice.absent_reason);
  } else {
    facts.set_unknown("nccl.version"_fact, choice.unknown_reason, source);
    facts.set_unknown("nccl.loaded_copy"_fact, choice.unknown_reason, source);
  }
  copies_out = std::move(found.copies);
}

void set_gpu_minimum_facts(FactSet& facts) {
  const std::string source = "nccl.version, pci.gpu.*.compute_capability";
  const Fact* version = facts.find("nccl.version"_fact);
  if (!version || version->state == FactState::absent) {
    facts.set("nccl.too_old_for_gpus"_fact, std::vector<std::string>{}, source);  // nothing loads NCCL
    return;
  }
  auto count = facts.get_int("pci.nvidia_gpu_count"_fact);
  if (!count) {
    facts.set_unknown("nccl.too_old_for_gpus"_fact, missing_reason(facts, "pci.nvidia_gpu_count"_fact, "pci.nvidia_gpu_count"), source);
    return;
  }
  std::vector<std::string> too_old;
  bool undecided = false;
  for (std::int64_t i = 0; i < std::min(*count, k_max_gpus); ++i) {
    auto cc = facts.get_string("pci.gpu.*.compute_capability"_pattern.at(i));
    if (!cc) continue;  // a GPU gpudoctor's table lacks: not judged
    auto minimum = nccl_minimum_for(*cc);
    if (!minimum) continue;
    if (version->state != FactState::present) {
      undecided = true;
      continue;
    }
    const std::string loaded = std::get<std::string>(version->value);
    auto cmp = compare_releases(loaded, minimum->minimum);
    if (!cmp) {
      undecided = true;
    } else if (*cmp < 0) {
      std::string arch = facts.get_string("pci.gpu.*.architecture"_pattern.at(i)).value_or("?");
      too_old.push_back(fmt::format("GPU {} {} ({}) needs NCCL >= {} ({}), {} loads", i, minimum->arch, arch,
                                    minimum->minimum, minimum->source, loaded));
    }
  }
  if (too_old.empty() && undecided) {
    facts.set_unknown("nccl.too_old_for_gpus"_fact, "nccl.version: " + version->reason, source);
    return;
  }
  facts.set("nccl.too_old_for_gpus"_fact, too_old, source);
}

/// The interfaces, or why they are unknown.
std::optional<std::vector<NetInterface>> read_interfaces(Host& host, FactSet& facts) {
  const std::string source(k_net_class);
  auto interfaces = read_net_interfaces(host);
  if (!interfaces) {
    std::string reason = interfaces.error().code == ENOENT ? "no /sys/class/net in this root or capture"
                                                           : unreadable_reason(interfaces.error(), host);
    facts.set_unknown("nccl.net.interfaces"_fact, reason, source);
    return std::nullopt;
  }
  std::vector<std::string> lines;
  for (const NetInterface& interface : *interfaces) lines.push_back(interface_text(interface));
  facts.set("nccl.net.interfaces"_fact, lines, source);
  return std::move(*interfaces);
}

void set_socket_ifname_facts(const std::optional<std::vector<NetInterface>>& interfaces,
                             const std::optional<NcclNameList>& list, FactSet& facts) {
  const std::string source = "env:NCCL_SOCKET_IFNAME, /sys/class/net";
  if (!list) {
    facts.set_absent("nccl.socket_ifname.unmatched"_fact, source, "NCCL_SOCKET_IFNAME is not set");
    facts.set_absent("nccl.socket_ifname.matched"_fact, source, "NCCL_SOCKET_IFNAME is not set");
    facts.set_absent("nccl.socket_ifname.usable_count"_fact, source, "NCCL_SOCKET_IFNAME is not set");
    return;
  }
  if (!interfaces) {
    facts.set_unknown("nccl.socket_ifname.unmatched"_fact, missing_reason(facts, "nccl.net.interfaces"_fact, "/sys/class/net"), source);
    facts.set_unknown("nccl.socket_ifname.matched"_fact, missing_reason(facts, "nccl.net.interfaces"_fact, "/sys/class/net"), source);
    facts.set_unknown("nccl.socket_ifname.usable_count"_fact, missing_reason(facts, "nccl.net.interfaces"_fact, "/sys/class/net"), source);
    return;
  }
  // NCCL takes every interface the list keeps and fails only when none is usable (bootstrap.cc:
  // "Bootstrap : no socket interface found"): an entry for another node's name is harmless.
  std::int64_t usable = 0;
  for (const NetInterface& interface : *interfaces) {
    if (interface.up && nccl_may_use_interface(list, interface.name)) ++usable;
  }
  facts.set("nccl.socket_ifname.usable_count"_fact, usable, source);
  facts.set("nccl.socket_ifname.unmatched"_fact, unmatched_interfaces(*list, *interfaces), source);
  facts.set("nccl.socket_ifname.matched"_fact, matched_interfaces(*list, *interfaces), source);
}

void set_ib_hca_facts(FactSet& facts) {
  const std::string source = "env:NCCL_IB_HCA, limits.rdma.devices";
  auto value = env_of(facts, "env.nccl_ib_hca"_fact);
  if (!value) {
    facts.set_absent("nccl.ib_hca.unmatched"_fact, source, "NCCL_IB_HCA is not set");
    return;
  }
  NcclNameList list = parse_nccl_name_list(*value);
  if (list.exclude) {
    facts.set_absent("nccl.ib_hca.unmatched"_fact, source, "NCCL_IB_HCA leaves devices out ('^'): none must exist");
    return;
  }
  const Fact* devices = facts.find("limits.rdma.devices"_fact);
  if (!devices || devices->state != FactState::present) {
    facts.set_unknown("nccl.ib_hca.unmatched"_fact, missing_reason(facts, "limits.rdma.devices"_fact, "limits.rdma.devices"), source);
    return;
  }
  facts.set("nccl.ib_hca.unmatched"_fact, unmatched_devices(list, std::get<std::vector<std::string>>(devices->value)), source);
}

/// The down ports NCCL_IB_HCA names: NCCL skips a port that is not active (net_ib.cc), so a list
/// that names one loses that rail, and a list whose ports are all down leaves NCCL on sockets. A
/// prefix that only selects devices ("mlx5") names no port: NCCL then uses the active ones, as
/// without the variable (an uncabled second port, an idle storage HCA: rdma.port-down's information).
void set_ib_hca_down_facts(FactSet& facts) {
  const std::string source = "env:NCCL_IB_HCA, rdma.down_port_ids";
  auto name = "nccl.ib_hca.down_ports"_fact;
  auto value = env_of(facts, "env.nccl_ib_hca"_fact);
  if (!value) {
    facts.set_absent(name, source, "NCCL_IB_HCA is not set: NCCL uses the active ports and skips the rest");
    return;
  }
  NcclNameList list = parse_nccl_name_list(*value);
  if (list.exclude) {
    facts.set_absent(name, source, "NCCL_IB_HCA leaves devices out ('^'): NCCL uses the other active ports");
    return;
  }
  const Fact* down = facts.find("rdma.down_port_ids"_fact);
  if (!down || down->state != FactState::present) {
    facts.set_unknown(name, missing_reason(facts, "rdma.down_port_ids"_fact, "rdma.down_port_ids"), source);
    return;
  }
  std::vector<std::string> picked;
  for (const std::string& id : std::get<std::vector<std::string>>(down->value)) {
    std::size_t colon = id.rfind(':');
    if (colon == std::string::npos) continue;
    std::string_view port = std::string_view(id).substr(colon + 1);
    if (port.empty() || port.size() > 3 || !all_digits(port)) continue;
    if (list_names_port(list, std::string_view(id).substr(0, colon), std::stoi(std::string(port)))) picked.push_back(id);
  }
  facts.set(name, std::move(picked), source);
}

void set_transport_facts(FactSet& facts) {
  NcclSwitches switches;
  switches.p2p_disable = env_of(facts, "env.nccl_p2p_disable"_fact);
  switches.shm_disable = env_of(facts, "env.nccl_shm_disable"_fact);
  switches.ib_disable = env_of(facts, "env.nccl_ib_disable"_fact);
  switches.nvls_enable = env_of(facts, "env.nccl_nvls_enable"_fact);
  switches.p2p_level = env_of(facts, "env.nccl_p2p_level"_fact);
  std::vector<std::string> disabled = disabled_transports(switches);
  std::string source = "env:NCCL_*";
  // A switch set in a configuration file says so: it holds for every job on the node.
  for (auto [variable, fact] : {std::pair{"NCCL_P2P_DISABLE", "env.nccl_p2p_disable"_fact},
                                std::pair{"NCCL_SHM_DISABLE", "env.nccl_shm_disable"_fact},
                                std::pair{"NCCL_IB_DISABLE", "env.nccl_ib_disable"_fact},
                                std::pair{"NCCL_NVLS_ENABLE", "env.nccl_nvls_enable"_fact},
                                std::pair{"NCCL_P2P_LEVEL", "env.nccl_p2p_level"_fact}}) {
    auto origin = set_in(facts, fact);
    if (!origin || *origin == "the environment") continue;
    for (std::string& entry : disabled) {
      if (entry.starts_with(std::string(variable) + "=")) {
        entry += " [set in " + *origin + "]";
        if (source.find(*origin) == std::string::npos) source += ", " + *origin;
      }
    }
  }
  facts.set("nccl.transports_disabled"_fact, disabled, source);
}

void set_topo_file_fact(Host& host, FactSet& facts) {
  const std::string source = "env:NCCL_TOPO_FILE";
  auto path = env_of(facts, "env.nccl_topo_file"_fact);
  if (!path) {
    facts.set_absent("nccl.topo_file.problem"_fact, source, "NCCL_TOPO_FILE is not set");
    return;
  }
  if (!path->starts_with("/")) {
    facts.set_unknown("nccl.topo_file.problem"_fact, "a relative path depends on the program's current folder", source);
    return;
  }
  auto st = host.stat(*path);
  if (!st) {
    facts.set("nccl.topo_file.problem"_fact,
              *path + ": " + (st.error().code == ENOENT ? std::string("no such file") : unreadable_reason(st.error(), host)), source);
    return;
  }
  if (st->kind != FileKind::regular) {
    facts.set("nccl.topo_file.problem"_fact, *path + ": not a regular file (" + std::string(to_string(st->kind)) + ")", source);
    return;
  }
  auto text = host.read_file(*path, k_topo_probe_bytes);
  if (!text) {
    facts.set("nccl.topo_file.problem"_fact, *path + ": " + unreadable_reason(text.error(), host), source);
    return;
  }
  facts.set_absent("nccl.topo_file.problem"_fact, source, "a readable regular file");
}

void set_route_facts(Host& host, const std::optional<NcclNameList>& socket_ifname, FactSet& facts) {
  const std::string source(k_routes);
  auto text = host.read_file(k_routes, k_max_route_file);
  if (!text && text.error().code == ENOENT) {
    // Every running Linux has it; a --root tree (an image) or an older capture does not, and an
    // image has no routes of its own to judge: absent, so that the rule stays quiet there.
    facts.set_absent("nccl.routes.duplicates"_fact, source, "no /proc/net/route in this root or capture");
    return;
  }
  if (!text) {
    facts.set_unknown("nccl.routes.duplicates"_fact, unreadable_reason(text.error(), host), source);
    return;
  }
  if (text->size() >= k_max_route_file) {
    facts.set_unknown("nccl.routes.duplicates"_fact, fmt::format("{} is larger than gpudoctor reads ({} MiB)", k_routes, k_max_route_file >> 20),
                      source);
    return;
  }
  RouteTable table = parse_proc_net_route(*text);
  if (table.routes.size() >= k_max_routes) {
    facts.set_unknown("nccl.routes.duplicates"_fact, fmt::format("more than {} routes", k_max_routes), source);
    return;
  }
  auto usable = [&](std::string_view name) { return nccl_may_use_interface(socket_ifname, name); };
  // The netdevs of RDMA ports (their PCI function has an infiniband folder: RoCE rails, IPoIB) of a
  // multi-rail node often share one subnet, routed per rail by source address (ip rule), which this
  // file cannot show; NCCL moves its data over them through NET/IB, whose port the HCA fixes, and
  // they reach each other over one fabric. Such a group counts only where NCCL_SOCKET_IFNAME picks
  // these interfaces on purpose.
  auto rdma_rail = [&](std::string_view name) {
    if (socket_ifname || name.empty() || name.find('/') != std::string_view::npos) return false;
    return host.stat(fmt::format("{}/{}/device/infiniband", k_net_class, name)).has_value();
  };
  facts.set("nccl.routes.duplicates"_fact, duplicate_destinations(table, usable, rdma_rail), source);
}

}  // namespace

void probe_nccl(Host& host, const ProbeOptions&, FactSet& facts) {
  std::vector<NcclCopy> copies;
  set_copy_facts(host, facts, copies);
  set_gpu_minimum_facts(facts);

  std::optional<NcclNameList> socket_ifname;
  if (auto value = env_of(facts, "env.nccl_socket_ifname"_fact)) socket_ifname = parse_nccl_name_list(*value);
  // The network is read only where NCCL could use it: a host without any NCCL copy and without
  // NCCL_SOCKET_IFNAME pays nothing for it.
  const bool nccl_here = !copies.empty() || socket_ifname.has_value();
  std::optional<std::vector<NetInterface>> interfaces;
  if (nccl_here) {
    interfaces = read_interfaces(host, facts);
    set_route_facts(host, socket_ifname, facts);
  } else {
    facts.set_absent("nccl.net.interfaces"_fact, std::string(k_net_class), "no NCCL here: not read");
    facts.set_absent("nccl.routes.duplicates"_fact, std::string(k_routes), "no NCCL here: not read");
  }
  set_socket_ifname_facts(interfaces, socket_ifname, facts);
  set_origin_fact(facts, "env.nccl_socket_ifname"_fact, "nccl.socket_ifname.set_in"_fact, "NCCL_SOCKET_IFNAME", facts);
  set_origin_fact(facts, "env.nccl_ib_hca"_fact, "nccl.ib_hca.set_in"_fact, "NCCL_IB_HCA", facts);
  set_origin_fact(facts, "env.nccl_topo_file"_fact, "nccl.topo_file.set_in"_fact, "NCCL_TOPO_FILE", facts);
  set_ib_hca_facts(facts);
  set_ib_hca_down_facts(facts);
  set_transport_facts(facts);
  set_topo_file_fact(host, facts);
}

}  // namespace gd
