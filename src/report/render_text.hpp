#pragma once
#include <string>

#include "report/report.hpp"

namespace gd {

struct TextStyle {
  bool color = false;    ///< ANSI colours: only on a terminal, never with NO_COLOR
  bool unicode = false;  ///< ✓ ✗ marks (terminal) instead of ASCII ones
  bool verbose = false;  ///< -v: every fact
};

/// The human report, in the style of `flutter doctor`: overview, findings with fixes, summary.
std::string render_text(const Report& report, const TextStyle& style);

}  // namespace gd
