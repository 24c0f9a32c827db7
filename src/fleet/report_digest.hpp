#pragma once
// One report reduced to what grouping a fleet needs: the node's name, when the report was made,
// each finding's id, severity, scope, action, title and first fix step, and the facts a fleet
// compares across its nodes (fleet/fleet_facts: only those the selection names). The report is read
// by fleet/json_scan, a validating reader made for speed, as a stream of values: its facts and
// capture are checked for well-formedness (exactly what nlohmann's strict parser accepts) but never
// built in memory, and only what the digest keeps is copied. Pure.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet_facts.hpp"

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
  std::vector<DigestFact> facts;        ///< the selected facts, in the report's order
};

/// The report in `text`, or why it is not one a fleet can count ("not valid JSON: ...", "a
/// gpudoctor capture, not a report", "schema_version 2 is newer than ...").
/// With `selection`, the facts it selects are kept too (bounded: k_max_digest_facts, each value
/// and item as a title is).
std::expected<ReportDigest, std::string> digest_report(std::string_view text,
                                                       const FleetFactSelection* selection = nullptr);

/// As above, and whether `text` is one valid JSON document in which no line starts with '{' (so
/// that fleet/report_splitter, too, would read all of it as this one document), whatever the
/// digest made of it (false also when it nests too deep to be read through).
std::expected<ReportDigest, std::string> digest_report(std::string_view text, const FleetFactSelection* selection,
                                                       bool& whole_document);

/// At most this many facts of one report are kept (a hostile report may claim 100,000 GPUs).
inline constexpr std::size_t k_max_digest_facts = 4096;

/// Whether a run.started value is one this version reads ("2026-12-01T10:22:33.123Z").
bool is_report_timestamp(std::string_view text);

}  // namespace gd
