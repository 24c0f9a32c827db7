#pragma once
// The report model: one structure, rendered as text or JSON (bloaty OutputFormat).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fact_set.hpp"
#include "core/finding.hpp"
#include "core/overview.hpp"

namespace gd {

inline constexpr int k_report_schema_version = 1;


struct RunInfo {
  std::string gpudoctor_version;
  std::string mode;    ///< "live", "root" or "replay"
  std::string source;  ///< "/" , the --root folder, or the replayed file
  std::int64_t duration_ms = 0;
  std::int64_t uid = -1;
  /// The node's name (uname nodename, the fact host.name; "<host>" under --redact, "" when
  /// unknown): fleet tools group reports by it.
  std::string host;
  std::string scope = "all";  ///< "all", or "node" with --scope node
  /// When the run began, UTC, RFC 3339 with milliseconds ("2026-12-01T10:22:33.123Z"): of two
  /// reports of one node, `gpudoctor fleet` counts the newer. "" when unknown.
  std::string started;
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
