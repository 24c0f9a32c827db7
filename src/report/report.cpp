#include "report/report.hpp"

namespace gd {

std::string_view to_string(AreaStatus status) {
  switch (status) {
    case AreaStatus::ok: return "ok";
    case AreaStatus::info: return "info";
    case AreaStatus::warning: return "warning";
    case AreaStatus::error: return "error";
    case AreaStatus::unknown: return "unknown";
    case AreaStatus::skipped: return "skipped";
  }
  return "?";
}

int Report::count(Severity severity) const {
  int n = 0;
  for (const auto& finding : findings) {
    n += finding.severity == severity ? 1 : 0;
  }
  return n;
}

}  // namespace gd
