#pragma once
// --scope node, the evaluation's second pass: only the node's problems stay, for health checks
// (a health check must never drain a node for whoever ran it). It runs after evaluate(), which
// saw every rule, so a node rule that an environment finding explains was already folded into
// that finding and leaves with it.

#include <span>
#include <string>
#include <vector>

#include "core/fact_set.hpp"
#include "rules/evaluator.hpp"
#include "rules/rule.hpp"

namespace gd {

/// Removes from `evaluation` the findings of the environment's scope, and the inconclusive
/// rules that are not the node's; returns the ids of the findings removed, in their order.
/// When the helper's second run, without the caller's LD_LIBRARY_PATH, LD_PRELOAD and
/// CUDA_VISIBLE_DEVICES, made CUDA work (cuda.clean_env), a finding whose rule rests on how the
/// first run failed (a stub libcuda that LD_LIBRARY_PATH put first) is the environment's too,
/// whatever its rule's scope. A finding or inconclusive id that no rule has counts as the node's.
std::vector<std::string> keep_node_scope(Evaluation& evaluation, std::span<const Rule> rules, const FactSet& facts);

}  // namespace gd
