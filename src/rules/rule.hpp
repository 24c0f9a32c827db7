#pragma once
// The rule model: what a rule file (rules/<area>/<name>.toml) compiles to. A rule is a condition
// tree over catalogued facts plus the text a finding carries when the condition holds.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/finding.hpp"

namespace gd {

/// The `spec` value every rule file must carry (DCGM diag-skus `spec:`).
inline constexpr std::string_view k_rule_spec = "gpudoctor-rule/1";

/// Leaf operators (the closed set; see operators.hpp for their table).
enum class Op {
  equals,       ///< value == operand (versions compared numerically)
  not_equals,   ///< value != operand
  in,           ///< value is one of the operand array
  not_in,       ///< value is none of the operand array
  gt,           ///< value > operand (integers, versions)
  ge,           ///< value >= operand
  lt,           ///< value < operand
  le,           ///< value <= operand
  contains,     ///< substring of a string, or element of a list
  starts_with,  ///< prefix of a string, or prefix of some element of a list
  present,      ///< operand true: the fact is present; false: the fact is absent
};

/// A leaf operand, as validated against the fact's catalogue type at load.
using Operand = std::variant<bool, std::int64_t, std::string, std::vector<std::int64_t>, std::vector<std::string>>;

/// One node of a `when` tree: all/any/not of children, or a leaf test on one fact.
struct Condition {
  enum class Kind { all, any, negation, leaf };

  Kind kind = Kind::leaf;
  std::vector<Condition> children;  ///< all/any: the operands; negation: exactly one
  std::string fact;                 ///< leaf: the fact name
  Op op = Op::present;              ///< leaf: the operator
  Operand operand;                  ///< leaf: what the fact is compared with
  int line = 0;                     ///< TOML line of this node
};

/// A rule id named in `superseded_by`, with the line it was written on.
struct RuleRef {
  std::string id;
  int line = 0;
};

struct Rule {
  std::string id;  ///< == file path under rules/ with '/' -> '.' and no .toml; stable API
  Severity severity = Severity::info;
  std::string area;  ///< report area: "cuda", "nvml", "driver", "environment", ...
  /// `scope` and `action` keys; when left out, the default of the rule's folder
  /// (rules/defaults.cpp: default_scope_action).
  Scope scope = Scope::node;
  Action action = Action::fix_config;
  std::string title;
  std::string message;  ///< what was seen; `{fact.name}` placeholders are filled at evaluation
  std::string why;      ///< why it breaks CUDA
  std::vector<std::string> fix;
  std::vector<std::string> references;
  std::vector<std::string> tags;
  /// When any of these rules fires, this rule's finding is dropped (most specific cause first).
  std::vector<RuleRef> superseded_by;
  /// Extra facts to show as evidence besides those the condition and the texts name.
  std::vector<std::string> evidence;
  Condition when;
  /// `[confirmed_by]`: what the CUDA proof shows when the finding is right (cuInit failed, a
  /// context failed). `when` holds and this is false: CUDA refutes the finding, which is dropped.
  /// Unknown (the proof was not run: --root, --no-cuda, a capture without a helper run): the
  /// finding is reported, marked as not confirmed, with what to run to confirm it.
  std::optional<Condition> confirmed_by;
  /// Among findings of the same severity, a lower rank is listed first (default 50): the
  /// finding that names the cause a user must act on first.
  int rank = 50;
  std::string file;  ///< where the rule was loaded from, for diagnostics
  int line = 1;      ///< line of the rule's `id` key
};

/// Every fact a condition names, in first-seen order, without duplicates.
std::vector<std::string> condition_facts(const Condition& condition);

/// Parse a severity name (error|warning|info).
bool parse_severity(std::string_view text, Severity& out);

}  // namespace gd
