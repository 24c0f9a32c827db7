#pragma once
// `gpudoctor diff A B`: what differs between two nodes' reports. First the findings only one of
// them has (by rule id), then every fact whose state or value differs (or, for an unknown fact,
// why it is unknown; a fact absent in one report and missing from the other is no difference),
// grouped by layer in the overview's order (fleet/fact_layers) with both values. Volatile facts (timings, PIDs,
// UUIDs, the host name) are counted but left out unless asked for. Facts are compared as the
// reports wrote them, without the catalogue: a report of a newer gpudoctor with facts this
// version does not know is compared too (those go under "other"). Pure.

#include <expected>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gd {

/// One side of a diff: a report's findings and facts, as its JSON has them.
struct DiffSide {
  std::string label;  ///< where it was read
  std::string kind;   ///< "report", or "capture" (replayed first)
  std::string host;   ///< run.host
  nlohmann::json findings = nlohmann::json::array();
  nlohmann::json facts = nlohmann::json::object();
};

/// The side a parsed `--json` report gives; the reason when `report` is not one this version reads.
std::expected<DiffSide, std::string> diff_side_from_report(nlohmann::json report, std::string label, std::string kind);

struct FindingBrief {
  std::string id, severity, title, scope, action;
};

struct FactDifference {
  std::string fact;
  nlohmann::json a;  ///< {"state", "value"?, "reason"?}, or null: the report has no such fact
  nlohmann::json b;
  bool is_volatile = false;
};

struct LayerDifferences {
  std::string id;
  std::string title;
  std::vector<FactDifference> facts;  ///< by name
};

struct ReportDiff {
  std::vector<FindingBrief> only_a;
  std::vector<FindingBrief> only_b;
  std::vector<std::string> both;        ///< ids of the findings both have
  std::vector<LayerDifferences> layers; ///< only layers with a difference shown, in overview order
  int facts_differing = 0;              ///< shown
  int volatile_left_out = 0;            ///< volatile facts that differ but are not shown
  bool same() const { return only_a.empty() && only_b.empty() && facts_differing == 0; }
};

enum class ShowVolatile { no, yes };

ReportDiff diff_reports(const DiffSide& a, const DiffSide& b, ShowVolatile show_volatile);

/// A fact's value as one line of text: the value, "absent", "unknown (reason)", "not in the report".
std::string fact_value_text(const nlohmann::json& fact);

}  // namespace gd
