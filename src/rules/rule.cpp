#include "rules/rule.hpp"

#include <algorithm>

namespace gd {
namespace {

void collect_facts(const Condition& condition, std::vector<std::string>& out) {
  if (condition.kind == Condition::Kind::leaf) {
    if (std::find(out.begin(), out.end(), condition.fact) == out.end()) {
      out.push_back(condition.fact);
    }
    return;
  }
  for (const Condition& child : condition.children) {
    collect_facts(child, out);
  }
}

}  // namespace

std::vector<std::string> condition_facts(const Condition& condition) {
  std::vector<std::string> out;
  collect_facts(condition, out);
  return out;
}

bool parse_severity(std::string_view text, Severity& out) {
  if (text == "error") {
    out = Severity::error;
  } else if (text == "warning") {
    out = Severity::warning;
  } else if (text == "info") {
    out = Severity::info;
  } else {
    return false;
  }
  return true;
}

}  // namespace gd
