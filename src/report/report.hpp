#pragma once
// The report model: one structure, rendered as text or JSON (bloaty OutputFormat).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fact_set.hpp"
#include "core/finding.hpp"
#include "report/run_info.hpp"

namespace gd {

inline constexpr int k_report_schema_version = 1;

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
