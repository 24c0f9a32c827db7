#pragma once
// The replay pipeline, shared by `replay` and `diff` (a capture is compared as the report its
// replay gives).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "report/report.hpp"
#include "rules/rule.hpp"

namespace gd {

/// Re-runs the diagnosis from a parsed capture, or a --json report that carries one; `file`
/// names the input in errors and in run.source.
Result<Report> replay_capture_json(const nlohmann::json& json, const std::string& file, const Options& options,
                                   const std::vector<Rule>& rules);

}  // namespace gd
