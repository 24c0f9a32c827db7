#pragma once
// Internal to the rule loader: reads a `when` tree (all/any/not/leaf) from TOML into a
// Condition, checking facts against the catalogue and operands against the fact types.

#include <optional>

#include "rules/load_context.hpp"
#include "rules/rule.hpp"

namespace gd::rules_detail {

/// The condition `node` describes; nullopt after reporting errors into `ctx`.
std::optional<Condition> parse_condition(const toml::node& node, LoadContext& ctx);

/// " (did you mean 'x'?)" for a fact name not in the catalogue, else "".
std::string fact_suggestion(std::string_view name);

}  // namespace gd::rules_detail
