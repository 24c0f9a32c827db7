#pragma once
// FactSet x Rules -> findings (GUIDE 4.4). Pure: it sees only the facts. Tri-state (watchman
// EvaluateResult): a test on a fact that is unknown or was never collected is unknown, `all` is
// false as soon as one child is false, `any` true as soon as one is true, `not` keeps unknown.
// A rule whose condition stays unknown is reported as inconclusive, never silently skipped.

#include <span>
#include <vector>

#include "core/fact_set.hpp"
#include "core/finding.hpp"
#include "rules/operators.hpp"
#include "rules/rule.hpp"

namespace gd {

struct Evaluation {
  /// Fired rules, placeholders filled, superseded ones removed; error > warning > info, then
  /// rule order.
  std::vector<Finding> findings;
  /// Rules that could not decide, in rule order, each with its unknown or uncollected facts.
  std::vector<Inconclusive> inconclusive;
};

/// Truth of one leaf: unknown when the fact is unknown or missing; on an absent fact only
/// `present = false` holds.
Truth evaluate_leaf(const Condition& leaf, const FactSet& facts);

/// Truth of a condition tree (Kleene logic).
Truth evaluate_condition(const Condition& condition, const FactSet& facts);

/// Evaluate every rule. A finding whose rule lists a fired rule in `superseded_by` is dropped
/// and named in that rule's `consequences`; an inconclusive rule is dropped the same way.
Evaluation evaluate(std::span<const Rule> rules, const FactSet& facts);

}  // namespace gd
