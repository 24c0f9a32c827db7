// The overview line of the iommu layer (probes/iommu): the IOMMU's mode for the GPUs, the ACS
// redirects between them, and IOMMU faults that name them.

#include "probes/iommu/iommu_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd::areas {
namespace {

std::string iommu_text(const FactSet& facts) {
  auto active = facts.get_bool("iommu.active"_fact);
  if (!active) return "IOMMU unknown";
  if (!*active) return "IOMMU off";
  auto translating = facts.get_int("iommu.translating_gpu_count"_fact);
  std::vector<std::string> types = list_of(facts, "iommu.gpu_domain_types"_fact);
  if (translating && *translating > 0) {
    return fmt::format("IOMMU translating for {} ({})", plural(*translating, "GPU"), fmt::join(types, ", "));
  }
  if (translating && !types.empty()) return fmt::format("IOMMU on, GPUs in {} domains", fmt::join(types, ", "));
  if (translating) return "IOMMU on, no GPU in an IOMMU group";
  return "IOMMU on, GPU domains unknown";
}

std::string acs_text(const FactSet& facts, std::int64_t gpus) {
  const Fact* redirect = facts.find("acs.redirect_bridges"_fact);
  auto checked = facts.get_int("acs.bridges_checked"_fact);
  if (redirect && redirect->state == FactState::unknown) {
    if (redirect->reason.find("needs root") != std::string::npos) return "ACS not read (needs root)";
    return "ACS unknown";
  }
  auto count = facts.get_int("acs.redirect_bridge_count"_fact);
  if (!count || !checked) return "ACS unknown";
  if (gpus < 2) {
    return *count > 0 ? "ACS redirect between GPU and RDMA NIC" : "";
  }
  if (*checked == 0) return "no bridge between the GPUs";
  if (*count == 0) return fmt::format("0 of {} between GPUs redirect", plural(*checked, "bridge"));
  return fmt::format("ACS redirect on {} between GPUs", plural(*count, "bridge"));
}

}  // namespace

AreaLine iommu_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  std::vector<std::string> parts;
  auto gpus = facts.get_int("pci.nvidia_gpu_count"_fact);
  parts.push_back(iommu_text(facts));
  if (gpus && *gpus < 2) {
    parts.push_back(*gpus == 1 ? "1 GPU: no peer path" : "no GPU: no peer path");
  }
  std::string acs = acs_text(facts, gpus.value_or(0));
  if (!acs.empty() && !(gpus && *gpus < 2 && acs == "ACS unknown")) parts.push_back(acs);
  std::vector<std::string> faulted = list_of(facts, "iommu.faulted_gpus"_fact);
  if (!faulted.empty()) parts.push_back(fmt::format("IOMMU faults from {} ({})", plural(static_cast<std::int64_t>(faulted.size()), "GPU"), fmt::join(faulted, ", ")));
  if (auto hv = facts.get_string("virt.hypervisor"_fact); hv && *hv != "none" && gpus && *gpus >= 2) {
    parts.push_back("in a VM: its bridges are virtual");
  }
  line.summary = fmt::format("{}", fmt::join(parts, "; "));
  for (const std::string& bridge : list_of(facts, "acs.redirect_bridges"_fact)) line.details.push_back(bridge);
  bool nothing_known = !facts.get_bool("iommu.active"_fact) && !facts.get_int("acs.bridges_checked"_fact);
  line.status = status_for(findings, layer, nothing_known ? AreaStatus::unknown : AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
