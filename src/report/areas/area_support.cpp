#include "report/areas/area_support.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/all_layers.hpp"

namespace gd::areas {

AreaLine start_line(const Layer& layer) {
  return AreaLine{std::string(layer.id), std::string(layer.title), AreaStatus::ok, "", {}};
}

bool answers_for(const Layer& layer, std::string_view area) {
  return std::find(layer.areas.begin(), layer.areas.end(), area) != layer.areas.end();
}

bool is_layer_rule(const Layer& layer, std::string_view rule_id) {
  std::string_view folder = rule_id.substr(0, rule_id.find('.'));
  return folder.size() < rule_id.size() &&
         std::any_of(layer.rule_folders.begin(), layer.rule_folders.end(), [&](const RuleFolder& f) { return f.folder == folder; });
}

AreaStatus worst_finding_status(const std::vector<Finding>& findings, const Layer& layer) {
  AreaStatus status = AreaStatus::ok;
  for (const auto& finding : findings) {
    if (!answers_for(layer, finding.area)) {
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

AreaStatus status_for(const std::vector<Finding>& findings, const Layer& layer, AreaStatus fallback) {
  AreaStatus from_findings = worst_finding_status(findings, layer);
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

// Each overview line's builder and the layer it shows. The lines come in the layers' order
// (core/all_layers.hpp), not this table's; a layer with rule areas must have one (a unit test
// checks), or its findings would have no line but "Other".
constexpr OverviewLine k_lines[] = {
    {layer_named("pci"), pci_line},
    {layer_named("driver"), module_line},
    {layer_named("devices"), device_nodes_line},
    {layer_named("container"), container_line},
    {layer_named("libraries"), libraries_line},
    {layer_named("cuda"), cuda_line},
    {layer_named("nvml"), nvml_line},
    {layer_named("kernel-log"), kernel_log_line},
    {layer_named("limits"), limits_line},
    {layer_named("python"), python_line},
    {layer_named("toolkit"), toolkit_line},
    {layer_named("environment"), environment_line},
};

std::span<const OverviewLine> overview_lines() { return k_lines; }

}  // namespace gd::areas

namespace gd {

std::vector<AreaLine> build_area_lines(const FactSet& facts, const std::vector<Finding>& findings) {
  using namespace areas;
  // From the PCI slot up to the user's environment.
  std::vector<AreaLine> lines;
  for (const Layer& layer : all_layers()) {
    for (const OverviewLine& entry : overview_lines()) {
      if (&entry.layer == &layer) lines.push_back(entry.build(layer, facts, findings));
    }
  }
  // A finding whose area no line answers for still marks the overview, on a line of its own (a
  // rule cannot name such an area: the loader refuses it; a finding made elsewhere could).
  std::vector<Finding> unclaimed;
  for (const auto& finding : findings) {
    bool claimed = std::any_of(overview_lines().begin(), overview_lines().end(),
                               [&](const OverviewLine& entry) { return answers_for(entry.layer, finding.area); });
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
