#pragma once
// What a rule concluded about the host, with the evidence that led there.

#include <string>
#include <vector>

namespace gd {

enum class Severity { info, warning, error };

std::string_view to_string(Severity severity);

/// One fact the finding rests on, as it was when the rule ran.
struct Evidence {
  std::string fact;
  std::string value;   ///< fact_text(): the value, "absent" or "unknown (reason)"
  std::string source;  ///< where the fact came from
};

struct Finding {
  std::string id;  ///< the rule id; stable API
  Severity severity = Severity::info;
  std::string area;     ///< report area the finding belongs to ("cuda", "nvml", ...)
  std::string title;
  std::string message;  ///< what was observed, placeholders filled
  std::string why;      ///< why it matters
  std::vector<std::string> fix;         ///< steps, usually commands
  std::vector<std::string> references;  ///< sources (URLs, driver source paths)
  std::vector<Evidence> evidence;
  std::vector<std::string> consequences;  ///< ids of findings this one explains (root cause first)
};

/// A rule that could not decide because facts it needs are unknown.
struct Inconclusive {
  std::string id;
  std::string title;
  std::vector<Evidence> unknown_facts;
};

}  // namespace gd
