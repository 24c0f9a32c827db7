#pragma once
// The closed set of leaf operators (GUIDE 4.1.6: one explicit table), the check of an operand
// against the fact's catalogue type at load, and the test of a present value at evaluation.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/fact.hpp"
#include "rules/rule.hpp"

namespace gd {

/// Tri-state truth (watchman EvaluateResult): a test on a fact nobody could observe is unknown.
enum class Truth { no, yes, unknown };

std::string_view to_string(Truth truth);

struct OpSpec {
  Op op;
  std::string_view name;         ///< the TOML key, e.g. "starts_with"
  std::string_view description;  ///< for `rules lint` / docs
};

/// Every operator, in documentation order.
std::span<const OpSpec> operator_table();

/// The operator spelled `name`, if any.
std::optional<Op> find_op(std::string_view name);

std::string_view to_string(Op op);

/// Whether `text` is a dotted numeric version ("580.65.06", "13.0", "9").
bool is_version(std::string_view text);

/// Compare two versions segment by segment, numerically ("580.159.04" > "580.65.06"); missing
/// trailing segments count as 0. nullopt when either is not a version.
std::optional<int> compare_versions(std::string_view a, std::string_view b);

/// Why `operand` does not suit `op` on a fact of `type`; empty when it does.
std::string check_operand(Op op, FactType type, const Operand& operand);

/// Apply `op` to a present value. Unknown only when the value cannot be compared (a version
/// fact whose text is not a version). `present` is decided by the evaluator, not here.
Truth apply_op(Op op, const FactValue& value, FactType type, const Operand& operand);

/// A short text of an operand for messages: `34`, `"ok"`, `[1, 2]`.
std::string operand_text(const Operand& operand);

}  // namespace gd
