#pragma once
// The report's last line: what a user (or a health check reading the text) may conclude. "No
// problems found" only when every layer was checked and none is flagged; otherwise it says what
// was not checked, and it never contradicts a [!] or [X] overview line.

#include <string>
#include <string_view>

#include "report/report.hpp"

namespace gd {

struct Verdict {
  enum class Kind {
    healthy,     ///< every layer checked, nothing flagged
    incomplete,  ///< no problem confirmed, but something was not checked or is flagged
    problems,    ///< errors or warnings found
  };
  Kind kind = Kind::healthy;
  std::string text;  ///< one sentence, without colour
};

Verdict verdict_of(const Report& report);

/// "healthy", "incomplete", "problems": the JSON report's summary.verdict.
std::string_view to_string(Verdict::Kind kind);

}  // namespace gd
