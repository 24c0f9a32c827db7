#pragma once
// Shared by the overview-line builders: status from findings, text for unknown facts.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/layer.hpp"
#include "report/report.hpp"

namespace gd::areas {

/// A line with the layer's id and title (core/all_layers.hpp), status ok, no summary yet.
AreaLine start_line(const Layer& layer);

/// Whether `area` (a finding's) is one the layer's line answers for.
bool answers_for(const Layer& layer, std::string_view area);
/// Whether `rule_id` is a rule of one of the layer's rules/ folders (its first segment).
bool is_layer_rule(const Layer& layer, std::string_view rule_id);

/// Worst severity among findings in the layer's areas; ok when none.
AreaStatus worst_finding_status(const std::vector<Finding>& findings, const Layer& layer);

/// The finding status, or `fallback` when no finding is in the layer's areas.
AreaStatus status_for(const std::vector<Finding>& findings, const Layer& layer, AreaStatus fallback);

/// Why a fact is not present: its reason, "absent", or "not collected".
std::string unknown_reason(const FactSet& facts, std::string_view name);
/// Whether the fact is unknown because the run was asked to leave it out ("not checked (--scope
/// node)"): the overview says "skipped", not "unknown".
bool is_left_out(const FactSet& facts, std::string_view name);

/// "1 GPU" / "8 GPUs".
std::string plural(std::int64_t count, std::string_view noun);

// One builder per overview line; area_support.cpp names each one's layer.
AreaLine pci_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine module_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine device_nodes_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine container_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine libraries_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine cuda_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine nvml_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine kernel_log_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine limits_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine environment_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine python_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);
AreaLine toolkit_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

using LineBuilder = AreaLine (*)(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

/// An overview line: the layer it shows (its id, title and areas) and its builder.
struct OverviewLine {
  const Layer& layer;
  LineBuilder build;
};

/// Every overview line's builder (build_area_lines puts them in the layers' order).
std::span<const OverviewLine> overview_lines();

/// The list fact's values, or empty.
std::vector<std::string> list_of(const FactSet& facts, std::string_view name);

}  // namespace gd::areas
