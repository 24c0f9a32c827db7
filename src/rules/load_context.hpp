#pragma once
// Internal to the rule loader: where diagnostics of one rule file go, and small helpers shared
// by the rule and condition readers. Not for use outside src/rules.

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "rules/toml_include.hpp"

#include "core/error.hpp"
#include "util/spelling.hpp"

namespace gd::rules_detail {

/// The file being read and the list its errors are collected into (mold `Error(ctx)` style).
struct LoadContext {
  std::string file;
  std::string_view text;  ///< the whole file, to locate placeholders inside multi-line strings
  std::vector<Error>* errors = nullptr;
  bool failed = false;

  void error(int line, std::string message) {
    failed = true;
    errors->push_back(Error{std::move(message), file, line});
  }
};

inline int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }
inline int line_of(const toml::key& key) { return static_cast<int>(key.source().begin.line); }

inline std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "date/time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

/// " (did you mean 'x'?)" for the closest candidate within 3 edits, else "".
template <typename Range>
std::string did_you_mean(std::string_view name, const Range& candidates) {
  std::string_view best = closest_name(name, candidates);
  return best.empty() ? std::string() : " (did you mean '" + std::string(best) + "'?)";
}

inline std::string did_you_mean(std::string_view name, std::initializer_list<std::string_view> candidates) {
  return did_you_mean<std::initializer_list<std::string_view>>(name, candidates);
}

}  // namespace gd::rules_detail
