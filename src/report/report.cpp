#include "report/report.hpp"

namespace gd {

int Report::count(Severity severity) const {
  int n = 0;
  for (const auto& finding : findings) {
    n += finding.severity == severity ? 1 : 0;
  }
  return n;
}

}  // namespace gd
