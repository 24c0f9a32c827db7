#include "probes/iommu/peer_devices.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "core/fact_key.hpp"
#include "probes/shared/pci_topology.hpp"
#include "probes/probe.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::string_view k_pci_devices = "/sys/bus/pci/devices";
constexpr std::string_view k_iommu_groups = "/sys/kernel/iommu_groups";
constexpr std::string_view k_rdma_class = "/sys/class/infiniband";
constexpr std::size_t k_max_nics = 64;       // more RDMA devices than any node has (SR-IOV VFs included)
constexpr std::size_t k_max_type = 64;       // "identity\n", "DMA-FQ\n"
constexpr std::int64_t k_max_gpus = 256;

std::string last_segment(std::string_view target) {
  while (!target.empty() && target.back() == '/') target.remove_suffix(1);
  std::size_t slash = target.rfind('/');
  return std::string(slash == std::string_view::npos ? target : target.substr(slash + 1));
}

std::string missing_or(const IoError& error, Host& host, std::string_view path) {
  if (error.code == ENOENT) return fmt::format("no {} in this root or capture", path);
  return fmt::format("{}: {}", path, unreadable_reason(error, host));
}

}  // namespace

std::string PeerDevice::label() const { return name.empty() ? "GPU " + bus_id : fmt::format("{} ({})", name, bus_id); }

GpuList gpus_from_facts(const FactSet& facts) {
  GpuList out;
  const Fact* count = facts.find("pci.nvidia_gpu_count"_fact);
  if (!count || count->state != FactState::present) {
    out.unknown_reason = "the NVIDIA GPUs are unknown: " + (count ? count->reason : std::string("pci.nvidia_gpu_count not collected"));
    return out;
  }
  std::int64_t n = std::min(facts.get_int("pci.nvidia_gpu_count"_fact).value_or(0), k_max_gpus);
  for (std::int64_t i = 0; i < n; ++i) {
    auto bus_id = facts.get_string("pci.gpu.*.bus_id"_pattern.at(i));
    if (!bus_id) {
      out.unknown_reason = fmt::format("pci.gpu.{}.bus_id is not known", i);
      return out;
    }
    PeerDevice gpu;
    gpu.bus_id = *bus_id;
    out.gpus.push_back(std::move(gpu));
  }
  return out;
}

NicList rdma_nics(Host& host) {
  NicList out;
  auto names = host.list_dir(k_rdma_class);
  if (!names) {
    // No class folder: no RDMA driver loaded, so no RDMA device.
    if (names.error().code != ENOENT) out.unknown_reason = missing_or(names.error(), host, k_rdma_class);
    return out;
  }
  for (const std::string& name : *names) {
    if (out.nics.size() >= k_max_nics) break;
    std::string link = fmt::format("{}/{}/device", k_rdma_class, name);
    auto target = host.read_link(link);
    PeerDevice nic;
    nic.name = name;
    if (!target) {
      // A software device (rxe, siw) has no PCI function: not a peer of the GPUs on the bus.
      if (target.error().code == ENOENT) continue;
      out.unknown_reason = missing_or(target.error(), host, link);
      return out;
    }
    nic.bus_id = last_segment(*target);
    if (!is_pci_bus_id(nic.bus_id)) continue;  // not a PCI device (a platform or virtual one)
    out.nics.push_back(std::move(nic));
  }
  return out;
}

void locate_path(Host& host, PeerDevice& device) {
  std::string dir = fmt::format("{}/{}", k_pci_devices, device.bus_id);
  if (auto target = host.read_link(dir)) {
    device.path = pci_path_from_link(*target);
    if (!device.path) device.path_reason = fmt::format("{} leads to '{}', not a PCI function under /sys/devices", dir, *target);
  } else if (target.error().code == EINVAL) {
    // A folder where the kernel has a link: a copied tree, which keeps no bus topology.
    device.path_reason = fmt::format("{} is not a link into /sys/devices (a copied tree keeps no PCI topology)", dir);
  } else {
    device.path_reason = missing_or(target.error(), host, dir);
  }
}

void locate_group(Host& host, PeerDevice& device) {
  std::string group_link = fmt::format("{}/{}/iommu_group", k_pci_devices, device.bus_id);
  auto group = host.read_link(group_link);
  if (!group) {
    // No link: the device is in no IOMMU group (no IOMMU, or none covers it).
    if (group.error().code != ENOENT) device.group_reason = missing_or(group.error(), host, group_link);
    return;
  }
  device.group = last_segment(*group);
  std::string type_path = fmt::format("{}/{}/type", k_iommu_groups, *device.group);
  auto type = host.read_file(type_path, k_max_type);
  if (type) {
    device.domain_type = std::string(trim_whitespace(*type));
  } else {
    device.type_reason = type.error().code == ENOENT
                             ? fmt::format("no {} (an older kernel without the type attribute, or a root or capture without it)", type_path)
                             : missing_or(type.error(), host, type_path);
  }
}

}  // namespace gd
