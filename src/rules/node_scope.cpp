#include "rules/node_scope.hpp"

#include <string_view>

#include "core/fact_key.hpp"

namespace gd {
namespace {

// The facts of the first helper run's outcome: a rule that tests one of them speaks about how
// CUDA failed with the caller's variables.
constexpr std::string_view k_first_run_outcome[] = {"cuda.init.result"_fact, "cuda.driver_version.result"_fact,
                                                    "cuda.libcuda.loaded"_fact, "cuda.libcuda.is_stub"_fact,
                                                    "cuda.helper.status"_fact};

bool rests_on_first_run(const Rule& rule) {
  std::vector<std::string> tested = condition_facts(rule.when);
  if (rule.confirmed_by) {
    std::vector<std::string> more = condition_facts(*rule.confirmed_by);
    tested.insert(tested.end(), more.begin(), more.end());
  }
  for (const std::string& fact : tested) {
    for (std::string_view name : k_first_run_outcome) {
      if (fact == name) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> keep_node_scope(Evaluation& evaluation, std::span<const Rule> rules, const FactSet& facts) {
  auto rule_of = [&](const std::string& id) -> const Rule* {
    for (const Rule& rule : rules) {
      if (rule.id == id) return &rule;
    }
    return nullptr;
  };
  bool works_without_variables =
      facts.get_string("cuda.clean_env.status"_fact) == "ok" && facts.get_int("cuda.clean_env.init.result"_fact) == 0;
  for (Finding& f : evaluation.findings) {
    const Rule* rule = rule_of(f.id);
    if (works_without_variables && rule && rests_on_first_run(*rule)) f.scope = Scope::environment;
  }
  auto is_node = [&](const std::string& id) {
    const Rule* rule = rule_of(id);
    return !rule || rule->scope == Scope::node;
  };
  std::vector<std::string> left_out;
  for (const Finding& f : evaluation.findings) {
    if (f.scope != Scope::node) left_out.push_back(f.id);
  }
  std::erase_if(evaluation.findings, [](const Finding& f) { return f.scope != Scope::node; });
  std::erase_if(evaluation.inconclusive, [&](const Inconclusive& item) { return !is_node(item.id); });
  return left_out;
}

}  // namespace gd
