#include "probes/iommu/acs_paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/fact_key.hpp"
#include "probes/iommu/bridge_acs.hpp"
#include "probes/iommu/pci_config_space.hpp"
#include "probes/shared/pci_topology.hpp"

namespace gd {
namespace {

constexpr std::string_view k_source = "/sys/bus/pci/devices/*/config (ACS extended capability 0x000D)";
constexpr std::size_t k_max_pair_paths = 64;  // 8 GPUs have 28 pairs; a 16-GPU node's 120 are cut

/// The devices on each side of a bridge that redirects: "GPUs 0000:18:00.0 and 0000:19:00.0".
struct RedirectUse {
  std::vector<std::string> between;  ///< labels, in the order met
  void add(const std::string& label) {
    if (std::find(between.begin(), between.end(), label) == between.end()) between.push_back(label);
  }
};

std::string joined_and(const std::vector<std::string>& items) {
  if (items.size() <= 1) return items.empty() ? std::string() : items[0];
  return fmt::format("{} and {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

/// All bridges met, read once each, in the order met.
class BridgeTable {
 public:
  explicit BridgeTable(Host& host) : m_host(host) {}
  const BridgeAcs& get(const std::string& bus_id) {
    auto it = m_read.find(bus_id);
    if (it == m_read.end()) {
      it = m_read.emplace(bus_id, read_bridge_acs(m_host, bus_id)).first;
      m_order.push_back(bus_id);
    }
    return it->second;
  }
  const std::vector<std::string>& order() const { return m_order; }

 private:
  Host& m_host;
  std::map<std::string, BridgeAcs> m_read;
  std::vector<std::string> m_order;
};

/// "0000:18:00.0 and 0000:19:00.0: 0000:16:00.0, 0000:17:00.0 (ReqRedir+ CmpltRedir+)".
std::string pair_path_text(const PeerDevice& a, const PeerDevice& b, const BridgesBetween& between, BridgeTable& table) {
  std::string head = fmt::format("{} and {}: ", a.bus_id, b.bus_id);
  if (between.bridges.empty()) return head + "no bridge between them";
  std::vector<std::string> parts;
  for (const std::string& bridge : between.bridges) {
    const BridgeAcs& acs = table.get(bridge);
    if (acs.redirects()) {
      parts.push_back(fmt::format("{} ({})", bridge, describe_redirect_bits(acs.control)));
    } else if (!acs.known) {
      parts.push_back(bridge + " (ACS unknown)");
    } else {
      parts.push_back(bridge);
    }
  }
  return head + (between.through_root_complex ? "through the root complex: " : "") + fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

void set_acs_unknown(const std::string& reason, FactSet& facts) {
  const std::string source(k_source);
  for (FactName name : {"acs.bridges_checked"_fact, "acs.bridges"_fact, "acs.readable"_fact, "acs.unreadable_bridges"_fact,
                        "acs.redirect_bridges"_fact, "acs.redirect_bridge_count"_fact, "acs.gpu_nic_redirect_bridges"_fact,
                        "acs.gpu_pair_paths"_fact}) {
    facts.set_unknown(name, reason, source);
  }
}

void set_acs_facts(Host& host, const std::vector<PeerDevice>& gpus, const std::vector<PeerDevice>& nics, FactSet& facts) {
  const std::string source(k_source);
  // A device whose place in the tree is unknown leaves every path through it unknown (without a
  // peer there is no path, and its place was not looked up).
  const bool has_peers = gpus.size() >= 2 || (!gpus.empty() && !nics.empty());
  for (const auto* list : {&gpus, &nics}) {
    if (!has_peers) break;
    for (const PeerDevice& device : *list) {
      if (!device.path) {
        set_acs_unknown(fmt::format("where {} sits on the PCI bus is unknown: {}", device.label(), device.path_reason), facts);
        return;
      }
    }
  }
  BridgeTable table(host);
  std::map<std::string, RedirectUse> gpu_redirects;  // bridge -> the GPUs it stands between
  std::map<std::string, RedirectUse> nic_redirects;  // bridge -> the GPU and NIC it stands between
  std::vector<std::string> gpu_redirect_order, nic_redirect_order;
  std::vector<std::string> pair_paths;
  bool unread_between_gpus = false, unread_between_gpu_and_nic = false;

  auto visit = [&](const PeerDevice& a, const PeerDevice& b, bool gpu_pair) {
    BridgesBetween between = bridges_between(*a.path, *b.path);
    for (const std::string& bridge : between.bridges) {
      const BridgeAcs& acs = table.get(bridge);
      // Devices that meet only in the root complex cross it whatever the bits say, and Linux turns
      // redirect on at every ACS-capable port once an IOMMU is on (drivers/pci/pci.c,
      // pci_std_enable_acs): only the switch ports below a common bridge decide whether peer traffic
      // turns up to the root complex instead of across the switch. Their path still lists them.
      if (between.through_root_complex) continue;
      if (!acs.known) (gpu_pair ? unread_between_gpus : unread_between_gpu_and_nic) = true;
      if (!acs.redirects()) continue;
      auto& uses = gpu_pair ? gpu_redirects : nic_redirects;
      auto& order = gpu_pair ? gpu_redirect_order : nic_redirect_order;
      if (!uses.contains(bridge)) order.push_back(bridge);
      uses[bridge].add(gpu_pair ? a.bus_id : a.label());
      uses[bridge].add(gpu_pair ? b.bus_id : b.label());
    }
    if (gpu_pair && pair_paths.size() < k_max_pair_paths) pair_paths.push_back(pair_path_text(a, b, between, table));
  };
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) visit(gpus[i], gpus[j], true);
  }
  for (const PeerDevice& gpu : gpus) {
    for (const PeerDevice& nic : nics) visit(gpu, nic, false);
  }

  std::vector<std::string> described, unreadable;
  bool all_known = true;
  for (const std::string& bridge : table.order()) {
    const BridgeAcs& acs = table.get(bridge);
    described.push_back(bridge + " " + acs.describe());
    if (!acs.known) {
      all_known = false;
      unreadable.push_back(bridge + ": " + acs.reason);
    }
  }
  auto redirect_list = [&](const std::vector<std::string>& order, std::map<std::string, RedirectUse>& uses, std::string_view noun) {
    std::vector<std::string> out;
    for (const std::string& bridge : order) {
      std::vector<std::string> between = uses[bridge].between;
      std::sort(between.begin(), between.end());  // bus order: "GPU ..." before a NIC's name
      out.push_back(fmt::format("{} ({}) between {}{}", bridge, describe_redirect_bits(table.get(bridge).control), noun,
                                joined_and(between)));
    }
    return out;
  };
  std::vector<std::string> gpu_list = redirect_list(gpu_redirect_order, gpu_redirects, "GPUs ");
  std::vector<std::string> nic_list = redirect_list(nic_redirect_order, nic_redirects, "");

  facts.set("acs.bridges_checked"_fact, static_cast<std::int64_t>(table.order().size()), source);
  facts.set("acs.bridges"_fact, described, source);
  facts.set("acs.unreadable_bridges"_fact, unreadable, source);
  if (table.order().empty()) {
    facts.set_absent("acs.readable"_fact, source, "no bridge between two GPUs or a GPU and an RDMA NIC");
  } else {
    facts.set("acs.readable"_fact, all_known, source);
  }
  // A redirect found is a redirect whatever else is unread; none found with some unread is unknown.
  std::string unread_reason;
  if (!unreadable.empty()) {
    unread_reason = "ACS not read on " + unreadable.front();
    if (unreadable.size() > 1) unread_reason += fmt::format(", and on {} more bridges", unreadable.size() - 1);
  }
  if (gpu_list.empty() && unread_between_gpus) {
    facts.set_unknown("acs.redirect_bridges"_fact, unread_reason, source);
    facts.set_unknown("acs.redirect_bridge_count"_fact, unread_reason, source);
  } else {
    facts.set("acs.redirect_bridge_count"_fact, static_cast<std::int64_t>(gpu_list.size()), source);
    facts.set("acs.redirect_bridges"_fact, std::move(gpu_list), source);
  }
  if (nic_list.empty() && unread_between_gpu_and_nic) {
    facts.set_unknown("acs.gpu_nic_redirect_bridges"_fact, unread_reason, source);
  } else {
    facts.set("acs.gpu_nic_redirect_bridges"_fact, std::move(nic_list), source);
  }
  facts.set("acs.gpu_pair_paths"_fact, std::move(pair_paths), source);
}

}  // namespace gd
