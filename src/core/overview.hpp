#pragma once
// The overview: one line per layer, flutter-doctor style, so that "NVML sees 8 GPUs but cuInit
// fails" is visible at a glance before any finding is read. Each layer's line is built in its own
// folder (probes/<layer>/<layer>_overview.cpp, named by the layer's row in core/all_layers.hpp)
// from the facts and the findings; report/areas/overview_lines.cpp puts them in the layers' order.
// What follows is the line and what every builder shares: status from findings, text for
// unknown facts.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact_set.hpp"
#include "core/finding.hpp"
#include "core/layer.hpp"

namespace gd {

enum class AreaStatus { ok, info, warning, error, unknown, skipped };
std::string_view to_string(AreaStatus status);

/// One line of the flutter-doctor style overview, plus indented details (one per GPU, ...).
struct AreaLine {
  std::string id;
  std::string title;
  AreaStatus status = AreaStatus::unknown;
  std::string summary;
  std::vector<std::string> details;
};

}  // namespace gd

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
std::string unknown_reason(const FactSet& facts, FactName name);
/// Whether the fact is unknown because the run was asked to leave it out ("not checked (--scope
/// node)"): the overview says "skipped", not "unknown".
bool is_left_out(const FactSet& facts, FactName name);

/// "1 GPU" / "8 GPUs".
std::string plural(std::int64_t count, std::string_view noun);

/// Whether the run is a pre-flight check (--target-gpu): the host layers are the target's,
/// given, not read.
bool is_preflight(const FactSet& facts);

/// The list fact's values, or empty.
std::vector<std::string> list_of(const FactSet& facts, FactName name);

}  // namespace gd::areas
