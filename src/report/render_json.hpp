#pragma once
#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace gd {

/// The `--json` report: a versioned contract documented in README.md ("JSON report").
nlohmann::json render_json(const Report& report);

}  // namespace gd
