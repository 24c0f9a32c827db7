#include "core/finding.hpp"

#include <iterator>

namespace gd {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

namespace {

constexpr std::string_view k_action_names[] = {"none",          "fix-environment", "fix-config", "update-software",
                                               "restart-service", "reset-gpu",     "reboot",     "replace-hardware"};

}  // namespace

std::string_view to_string(Scope scope) { return scope == Scope::node ? "node" : "environment"; }

std::string_view to_string(Action action) { return k_action_names[static_cast<int>(action)]; }

std::span<const std::string_view> action_names() { return k_action_names; }

bool parse_scope(std::string_view text, Scope& out) {
  if (text == "node") {
    out = Scope::node;
  } else if (text == "environment") {
    out = Scope::environment;
  } else {
    return false;
  }
  return true;
}

bool parse_action(std::string_view text, Action& out) {
  for (std::size_t i = 0; i < std::size(k_action_names); ++i) {
    if (k_action_names[i] == text) {
      out = static_cast<Action>(i);
      return true;
    }
  }
  return false;
}

}  // namespace gd
