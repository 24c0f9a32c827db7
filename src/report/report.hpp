#pragma once
// The report model: one structure, rendered as text or JSON (bloaty OutputFormat).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fact_set.hpp"
#include "core/finding.hpp"
#include "report/run_info.hpp"
#include "core/overview.hpp"

namespace gd {

inline constexpr int k_report_schema_version = 1;


struct Report {
  RunInfo run;
  FactSet facts;
  std::vector<AreaLine> areas;
  std::vector<Finding> findings;  ///< most likely cause first
  std::vector<Inconclusive> inconclusive;
  /// --scope node: ids of the environment's findings left out of `findings`.
  std::vector<std::string> left_out;
  std::optional<nlohmann::json> capture;  ///< what was read, unless --no-capture

  int count(Severity severity) const;
};

/// Builds the overview lines from facts and findings (pure).
std::vector<AreaLine> build_area_lines(const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd
