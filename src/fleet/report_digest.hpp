#pragma once
// One report reduced to what grouping a fleet needs: the node's name, when the report was made,
// and each finding's id, severity, scope, action, title and first fix step. The report is parsed
// as a stream of events (nlohmann's SAX interface), so its facts and capture are checked for
// well-formedness but never built in memory. Pure.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

struct DigestFinding {
  std::string id;
  std::string severity;  ///< "error", "warning", "info" (kept as written: a newer report may add values)
  std::string scope;     ///< "node", "environment"; empty in reports older than the field
  std::string action;    ///< "reset-gpu", ...; empty in reports older than the field
  std::string title;
  std::string first_fix;  ///< the fix's first step, empty when it has none
};

struct ReportDigest {
  std::int64_t schema_version = 0;
  std::string host;     ///< run.host: "" when unknown or absent (reports older than the field)
  std::string started;  ///< run.started (UTC, RFC 3339): "" when absent
  std::string scope;    ///< run.scope: "all", "node", or "" when absent
  std::vector<DigestFinding> findings;  ///< most likely cause first, as the report has them
};

/// The report in `text`, or why it is not one a fleet can count ("not valid JSON: ...", "a
/// gpudoctor capture, not a report", "schema_version 2 is newer than ...").
std::expected<ReportDigest, std::string> digest_report(std::string_view text);

/// Whether a run.started value is one this version reads ("2026-12-01T10:22:33.123Z").
bool is_report_timestamp(std::string_view text);

}  // namespace gd
