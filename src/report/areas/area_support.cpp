#include "report/areas/area_support.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gd::areas {

AreaStatus worst_finding_status(const std::vector<Finding>& findings, AreaNames finding_areas) {
  AreaStatus status = AreaStatus::ok;
  for (const auto& finding : findings) {
    if (std::find(finding_areas.begin(), finding_areas.end(), finding.area) == finding_areas.end()) {
      continue;
    }
    if (finding.severity == Severity::error) {
      return AreaStatus::error;
    }
    if (finding.severity == Severity::warning) {
      status = AreaStatus::warning;
    } else if (status == AreaStatus::ok) {
      status = AreaStatus::info;
    }
  }
  return status;
}

AreaStatus status_for(const std::vector<Finding>& findings, AreaNames finding_areas, AreaStatus fallback) {
  AreaStatus from_findings = worst_finding_status(findings, finding_areas);
  return from_findings == AreaStatus::ok ? fallback : from_findings;
}

std::string unknown_reason(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(name);
  if (!fact) {
    return "not collected";
  }
  return fact->reason.empty() ? std::string(to_string(fact->state)) : fact->reason;
}

bool is_left_out(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(name);
  return fact && fact->state == FactState::unknown && fact->reason.starts_with("not checked (--scope");
}

std::vector<std::string> list_of(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(name);
  if (fact && fact->state == FactState::present) {
    if (auto* v = std::get_if<std::vector<std::string>>(&fact->value)) {
      return *v;
    }
  }
  return {};
}

std::string plural(std::int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

}  // namespace gd::areas

namespace gd {

std::vector<AreaLine> build_area_lines(const FactSet& facts, const std::vector<Finding>& findings) {
  using namespace areas;
  // From the PCI slot up to the user's environment.
  std::vector<AreaLine> lines = {pci_line(facts, findings),       module_line(facts, findings),
                                 device_nodes_line(facts, findings), container_line(facts, findings),
                                 libraries_line(facts, findings), cuda_line(facts, findings),
                                 nvml_line(facts, findings),      kernel_log_line(facts, findings),
                                 python_line(facts, findings),    toolkit_line(facts, findings),
                                 environment_line(facts, findings)};
  // A finding whose area no line answers for still marks the overview, on a line of its own.
  static constexpr std::array<AreaNames, 11> k_claimed = {
      k_pci_areas,  k_module_areas,     k_device_areas, k_container_areas, k_library_areas,    k_cuda_areas,
      k_nvml_areas, k_kernel_log_areas, k_python_areas, k_toolkit_areas,   k_environment_areas};
  std::vector<Finding> unclaimed;
  for (const auto& finding : findings) {
    bool claimed = std::any_of(k_claimed.begin(), k_claimed.end(), [&](AreaNames names) {
      return std::find(names.begin(), names.end(), finding.area) != names.end();
    });
    if (!claimed) {
      unclaimed.push_back(finding);
    }
  }
  if (!unclaimed.empty()) {
    std::vector<std::string> ids;
    for (const auto& finding : unclaimed) {
      ids.push_back(finding.id);
    }
    bool any_error = std::any_of(unclaimed.begin(), unclaimed.end(), [](const Finding& f) { return f.severity == Severity::error; });
    bool any_warning =
        std::any_of(unclaimed.begin(), unclaimed.end(), [](const Finding& f) { return f.severity == Severity::warning; });
    AreaStatus status = any_error ? AreaStatus::error : any_warning ? AreaStatus::warning : AreaStatus::info;
    lines.push_back(AreaLine{"other", "Other", status, fmt::format("{}", fmt::join(ids, ", ")), {}});
  }
  return lines;
}

}  // namespace gd
