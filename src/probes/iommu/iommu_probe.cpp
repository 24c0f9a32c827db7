#include "probes/iommu/iommu_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

#include "core/fact_key.hpp"
#include "probes/iommu/acs_paths.hpp"
#include "probes/iommu/iommu_faults.hpp"
#include "probes/iommu/iommu_settings.hpp"
#include "probes/iommu/peer_devices.hpp"

namespace gd {
namespace {

constexpr std::string_view k_iommu_class = "/sys/class/iommu";         // one entry per IOMMU unit
constexpr std::string_view k_iommu_groups = "/sys/kernel/iommu_groups"; // one folder per group
constexpr std::string_view k_cmdline = "/proc/cmdline";
constexpr std::size_t k_max_cmdline = 64 * 1024;  // COMMAND_LINE_SIZE is 2048 on x86, 4096 on arm64
constexpr std::size_t k_max_fault_lines = 10;

void add_once(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

/// iommu.active and iommu.units. Every kernel with IOMMU support registers the class at boot
/// (drivers/iommu/iommu-sysfs.c), so a missing folder is a tree or capture without it.
void set_iommu_state(Host& host, FactSet& facts) {
  const std::string source(k_iommu_class);
  auto units = host.list_dir(k_iommu_class);
  auto groups = host.list_dir(k_iommu_groups);
  if (!units && !groups) {
    std::string reason = units.error().code == ENOENT ? fmt::format("no {} or {} in this root or capture", k_iommu_class, k_iommu_groups)
                                                      : fmt::format("{}: {}", k_iommu_class, unreadable_reason(units.error(), host));
    facts.set_unknown("iommu.active"_fact, reason, source);
    facts.set_unknown("iommu.units"_fact, reason, source);
    return;
  }
  std::vector<std::string> names = units ? *units : std::vector<std::string>{};
  bool active = !names.empty() || (groups && !groups->empty());
  facts.set("iommu.active"_fact, active, fmt::format("{}, {}", k_iommu_class, k_iommu_groups));
  facts.set("iommu.units"_fact, std::move(names), source);
}

void set_cmdline(Host& host, FactSet& facts) {
  const std::string source(k_cmdline);
  auto text = host.read_file(k_cmdline, k_max_cmdline);
  if (!text) {
    facts.set_unknown("iommu.cmdline_options"_fact,
                      text.error().code == ENOENT ? fmt::format("no {} in this root or capture", k_cmdline)
                                                  : unreadable_reason(text.error(), host),
                      source);
    return;
  }
  facts.set("iommu.cmdline_options"_fact, iommu_cmdline_options(*text), source);
}

/// "0000:18:00.0 group 12 DMA-FQ"; "mlx5_0 0000:3b:00.0 ..." for a NIC.
std::string group_text(const PeerDevice& device) {
  std::string head = device.name.empty() ? device.bus_id : device.name + " " + device.bus_id;
  if (!device.group) return head + (device.group_reason.empty() ? " no IOMMU group" : " IOMMU group unknown: " + device.group_reason);
  return fmt::format("{} group {} {}", head, *device.group, device.domain_type.value_or("type unknown: " + device.type_reason));
}

void set_groups(const std::vector<PeerDevice>& gpus, const std::vector<PeerDevice>& nics, FactSet& facts) {
  const std::string source = "/sys/bus/pci/devices/*/iommu_group, /sys/kernel/iommu_groups/*/type";
  std::vector<std::string> gpu_groups, types, translating, nic_groups;
  std::string undecided;  // why some GPU's translation is unknown
  for (const PeerDevice& gpu : gpus) {
    gpu_groups.push_back(group_text(gpu));
    if (!gpu.group) {
      if (!gpu.group_reason.empty() && undecided.empty()) undecided = gpu.group_reason;
      continue;
    }
    if (!gpu.domain_type) {
      if (undecided.empty()) undecided = gpu.type_reason;
      continue;
    }
    add_once(types, *gpu.domain_type);
    if (classify_domain_type(*gpu.domain_type) == DomainKind::translating) translating.push_back(gpu.bus_id);
  }
  for (const PeerDevice& nic : nics) nic_groups.push_back(group_text(nic));
  facts.set("iommu.gpu_groups"_fact, std::move(gpu_groups), source);
  facts.set("iommu.nic_groups"_fact, std::move(nic_groups), source);
  if (!undecided.empty()) {
    facts.set_unknown("iommu.gpu_domain_types"_fact, undecided, source);
    facts.set_unknown("iommu.translating_gpus"_fact, undecided, source);
    facts.set_unknown("iommu.translating_gpu_count"_fact, undecided, source);
    return;
  }
  facts.set("iommu.gpu_domain_types"_fact, std::move(types), source);
  facts.set("iommu.translating_gpu_count"_fact, static_cast<std::int64_t>(translating.size()), source);
  facts.set("iommu.translating_gpus"_fact, std::move(translating), source);
}

/// The fault lines of the kernel-log layer (klog.iommu_fault_lines), matched to the GPUs and NICs.
void set_faults(const std::vector<PeerDevice>& gpus, const std::vector<PeerDevice>& nics, FactSet& facts) {
  const std::string source = "klog.iommu_fault_lines";
  const Fact* lines = facts.find("klog.iommu_fault_lines"_fact);
  const auto* list = lines && lines->state == FactState::present ? std::get_if<std::vector<std::string>>(&lines->value) : nullptr;
  if (!list) {
    std::string reason = "kernel log: " + (lines ? (lines->reason.empty() ? std::string("not read") : lines->reason) : std::string("not collected"));
    for (FactName name : {"iommu.fault_lines"_fact, "iommu.faulted_gpus"_fact, "iommu.faulted_peers"_fact, "iommu.faulted_peer_count"_fact,
                          "iommu.faulted_devices"_fact}) {
      facts.set_unknown(name, reason, source);
    }
    return;
  }
  std::vector<std::string> quoted, faulted_gpus, peers, devices;
  for (const std::string& line : *list) {
    auto device = iommu_fault_device(line);
    if (!device) continue;
    std::string named = *device;
    bool ours = false;
    for (const PeerDevice& gpu : gpus) {
      if (!fault_device_matches(*device, gpu.bus_id)) continue;
      add_once(faulted_gpus, gpu.bus_id);
      named = gpu.bus_id + " (GPU)";
      ours = true;
    }
    for (const PeerDevice& nic : nics) {
      if (!fault_device_matches(*device, nic.bus_id)) continue;
      named = fmt::format("{} (RDMA NIC {})", nic.bus_id, nic.name);
      ours = true;
    }
    add_once(devices, named);
    if (!ours) continue;
    add_once(peers, named);
    quoted.push_back(line);
  }
  // The newest lines that name ours: the list is oldest first.
  if (quoted.size() > k_max_fault_lines) quoted.erase(quoted.begin(), quoted.end() - static_cast<std::ptrdiff_t>(k_max_fault_lines));
  facts.set("iommu.fault_lines"_fact, std::move(quoted), source);
  facts.set("iommu.faulted_gpus"_fact, std::move(faulted_gpus), source);
  facts.set("iommu.faulted_peer_count"_fact, static_cast<std::int64_t>(peers.size()), source);
  facts.set("iommu.faulted_peers"_fact, std::move(peers), source);
  facts.set("iommu.faulted_devices"_fact, std::move(devices), source);
}

}  // namespace

void probe_iommu(Host& host, const ProbeOptions&, FactSet& facts) {
  set_iommu_state(host, facts);
  set_cmdline(host, facts);
  GpuList gpus = gpus_from_facts(facts);
  NicList nics = rdma_nics(host);
  std::string unknown = !gpus.unknown_reason.empty() ? gpus.unknown_reason : nics.unknown_reason;
  if (!unknown.empty()) {
    for (FactName name : {"iommu.gpu_groups"_fact, "iommu.gpu_domain_types"_fact, "iommu.translating_gpus"_fact,
                          "iommu.translating_gpu_count"_fact, "iommu.nic_groups"_fact, "iommu.fault_lines"_fact,
                          "iommu.faulted_gpus"_fact, "iommu.faulted_peers"_fact, "iommu.faulted_peer_count"_fact,
                          "iommu.faulted_devices"_fact}) {
      facts.set_unknown(name, unknown, "pci.gpu.*.bus_id, /sys/class/infiniband");
    }
    set_acs_unknown(unknown, facts);
    return;
  }
  // The bus topology matters only between peers: one GPU and no NIC has no path to look at.
  const bool has_peers = gpus.gpus.size() >= 2 || (!gpus.gpus.empty() && !nics.nics.empty());
  for (auto* list : {&gpus.gpus, &nics.nics}) {
    for (PeerDevice& device : *list) {
      if (has_peers) locate_path(host, device);
      locate_group(host, device);
    }
  }
  set_groups(gpus.gpus, nics.nics, facts);
  set_acs_facts(host, gpus.gpus, nics.nics, facts);
  set_faults(gpus.gpus, nics.nics, facts);
}

}  // namespace gd
