#pragma once
// `gpudoctor diff` output: text for people, or the diff JSON, a versioned contract documented in
// README.md ("Diff JSON"). Pure functions of the diff and its two sides.

#include <string>

#include <nlohmann/json.hpp>

#include "fleet/report_diff.hpp"

namespace gd {

/// Fields are only ever added within a version; a change of meaning or a removal bumps it.
inline constexpr int k_diff_schema_version = 1;

struct DiffTextOptions {
  bool verbose = false;  ///< -v: values uncut (and the volatile facts are in the diff)
};

std::string render_diff_text(const DiffSide& a, const DiffSide& b, const ReportDiff& diff, const DiffTextOptions& options);
nlohmann::json render_diff_json(const DiffSide& a, const DiffSide& b, const ReportDiff& diff);

}  // namespace gd
