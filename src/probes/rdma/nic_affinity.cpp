#include "probes/rdma/nic_affinity.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd {
namespace {

constexpr std::int64_t k_max_gpus = 64;

struct Candidate {
  Closeness closeness = Closeness::unknown_numa;
  std::vector<std::string> names;
};

}  // namespace

void set_nic_affinity_facts(Host& host, const HcaScan& scan, FactSet& facts) {
  const std::string source = "pci.gpu.*.bus_id, /sys/bus/pci/devices, /sys/class/infiniband";
  auto name = "rdma.gpu_nic_affinity"_fact;
  if (scan.unknown_reason) {
    facts.set_unknown(name, *scan.unknown_reason, source);
    return;
  }
  std::vector<const Hca*> nics;
  for (const Hca& hca : scan.hcas) {
    if (hca.pci) nics.push_back(&hca);
  }
  auto gpu_count = facts.get_int("pci.nvidia_gpu_count"_fact);
  if (!gpu_count) {
    facts.set_unknown(name, "the GPUs on the bus are unknown: " + std::string(facts.find("pci.nvidia_gpu_count"_fact) ? "pci.nvidia_gpu_count unknown" : "pci.nvidia_gpu_count not collected"),
                      source);
    return;
  }
  if (*gpu_count == 0 || nics.empty()) {
    facts.set_absent(name, source, *gpu_count == 0 ? "no NVIDIA GPU on the bus" : "no HCA with a PCI function");
    return;
  }
  std::vector<std::string> lines;
  for (std::int64_t i = 0; i < std::min(*gpu_count, k_max_gpus); ++i) {
    auto bus_id = facts.get_string("pci.gpu.*.bus_id"_pattern.at(i));
    if (!bus_id) continue;
    auto link = host.read_link(fmt::format("/sys/bus/pci/devices/{}", *bus_id));
    auto path = link ? parse_pci_path(*link) : std::nullopt;
    if (!path) {
      lines.push_back(fmt::format("GPU {}: its place in the PCI tree is unknown (/sys/bus/pci/devices/{}: {})", *bus_id, *bus_id,
                                  link ? "not a PCI device path" : unreadable_reason(link.error(), host)));
      continue;
    }
    auto gpu_numa = facts.get_int("pci.gpu.*.numa_node"_pattern.at(i));
    std::optional<int> numa = gpu_numa ? std::optional<int>(static_cast<int>(*gpu_numa)) : std::nullopt;
    Candidate best;
    bool first = true;
    for (const Hca* nic : nics) {
      Closeness near = closeness(*path, numa, *nic->pci, nic->numa_node);
      if (first || near < best.closeness) {
        best = Candidate{near, {nic->name}};
        first = false;
      } else if (near == best.closeness) {
        best.names.push_back(nic->name);
      }
    }
    lines.push_back(fmt::format("GPU {} <-> {} ({})", *bus_id, fmt::join(best.names, ", "), to_string(best.closeness)));
  }
  facts.set(name, std::move(lines), source);
}

}  // namespace gd
