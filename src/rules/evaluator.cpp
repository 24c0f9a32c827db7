#include "rules/evaluator.hpp"

#include <algorithm>
#include <map>

#include "rules/placeholders.hpp"

namespace gd {
namespace {

Evidence evidence_for(const FactSet& facts, const std::string& name) {
  const Fact* fact = facts.find(FactName::unchecked(name));
  if (!fact) {
    return Evidence{name, std::string(k_not_collected), {}};
  }
  return Evidence{name, fact_text(*fact), fact->source};
}

void add_unique(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    names.push_back(name);
  }
}

// Condition facts always; facts the texts and `evidence` name only when they were collected.
std::vector<Evidence> finding_evidence(const Rule& rule, const FactSet& facts) {
  std::vector<std::string> names = condition_facts(rule.when);
  if (rule.confirmed_by) {
    for (const std::string& name : condition_facts(*rule.confirmed_by)) add_unique(names, name);
  }
  std::size_t condition_count = names.size();
  std::vector<std::string_view> texts = {rule.title, rule.message, rule.why};
  texts.insert(texts.end(), rule.fix.begin(), rule.fix.end());
  for (std::string_view text : texts) {
    for (const Placeholder& placeholder : find_placeholders(text)) {
      add_unique(names, placeholder.fact);
    }
  }
  for (const std::string& name : rule.evidence) {
    add_unique(names, name);
  }
  std::vector<Evidence> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i < condition_count || facts.find(FactName::unchecked(names[i]))) {
      out.push_back(evidence_for(facts, names[i]));
    }
  }
  return out;
}

Finding make_finding(const Rule& rule, const FactSet& facts) {
  Finding finding;
  finding.id = rule.id;
  finding.severity = rule.severity;
  finding.area = rule.area;
  finding.scope = rule.scope;
  finding.action = rule.action;
  finding.title = fill_placeholders(rule.title, facts);
  finding.message = fill_placeholders(rule.message, facts);
  finding.why = fill_placeholders(rule.why, facts);
  for (const std::string& step : rule.fix) {
    finding.fix.push_back(fill_placeholders(step, facts));
  }
  finding.references = rule.references;
  finding.evidence = finding_evidence(rule, facts);
  return finding;
}

// "CUDA was not tried (cuda.init.result: not checked (--no-cuda))": why the confirming facts
// are unknown, each reason once, and what to run.
std::string unconfirmed_text(const Rule& rule, const FactSet& facts) {
  std::vector<std::string> reasons;
  for (const std::string& name : condition_facts(*rule.confirmed_by)) {
    const Fact* fact = facts.find(FactName::unchecked(name));
    if (fact && fact->state != FactState::unknown) continue;
    add_unique(reasons, fact && !fact->reason.empty() ? fact->reason : std::string(k_not_collected));
  }
  std::string out = "CUDA, which would confirm it, gave no answer here (";
  for (std::size_t i = 0; i < reasons.size(); ++i) out += (i ? "; " : "") + reasons[i];
  return out + "); run gpudoctor on the host itself, without --no-cuda or --root, to confirm";
}

Inconclusive make_inconclusive(const Rule& rule, const FactSet& facts) {
  Inconclusive result;
  result.id = rule.id;
  result.title = fill_placeholders(rule.title, facts);
  for (const std::string& name : condition_facts(rule.when)) {
    const Fact* fact = facts.find(FactName::unchecked(name));
    if (!fact || fact->state == FactState::unknown) {
      result.unknown_facts.push_back(evidence_for(facts, name));
    }
  }
  return result;
}

int severity_rank(Severity severity) {
  switch (severity) {
    case Severity::error: return 0;
    case Severity::warning: return 1;
    case Severity::info: return 2;
  }
  return 3;
}

}  // namespace

Truth evaluate_leaf(const Condition& leaf, const FactSet& facts) {
  const Fact* fact = facts.find(FactName::unchecked(leaf.fact));
  if (!fact || fact->state == FactState::unknown) {
    return Truth::unknown;
  }
  if (leaf.op == Op::present) {
    const bool* want = std::get_if<bool>(&leaf.operand);
    if (!want) {
      return Truth::unknown;
    }
    return (fact->state == FactState::present) == *want ? Truth::yes : Truth::no;
  }
  if (fact->state == FactState::absent) {
    return Truth::no;
  }
  return apply_op(leaf.op, fact->value, fact->type, leaf.operand);
}

Truth evaluate_condition(const Condition& condition, const FactSet& facts) {
  switch (condition.kind) {
    case Condition::Kind::leaf: return evaluate_leaf(condition, facts);
    case Condition::Kind::negation: {
      if (condition.children.empty()) {
        return Truth::unknown;
      }
      Truth inner = evaluate_condition(condition.children.front(), facts);
      return inner == Truth::unknown ? Truth::unknown : (inner == Truth::yes ? Truth::no : Truth::yes);
    }
    case Condition::Kind::all:
    case Condition::Kind::any: {
      // all: a definite false decides; any: a definite true decides. Otherwise unknown wins.
      Truth decisive = condition.kind == Condition::Kind::all ? Truth::no : Truth::yes;
      Truth fallback = condition.kind == Condition::Kind::all ? Truth::yes : Truth::no;
      bool unknown = false;
      for (const Condition& child : condition.children) {
        Truth truth = evaluate_condition(child, facts);
        if (truth == decisive) {
          return decisive;
        }
        unknown = unknown || truth == Truth::unknown;
      }
      return unknown ? Truth::unknown : fallback;
    }
  }
  return Truth::unknown;
}

Evaluation evaluate(std::span<const Rule> rules, const FactSet& facts) {
  // Decide every rule first: supersession needs to know which rules fired. A rule whose
  // confirmation the CUDA proof refutes did not fire; one the proof could not confirm (not run)
  // fires unconfirmed.
  std::vector<Truth> truths;
  std::vector<bool> unconfirmed;
  std::vector<std::string> fired;
  for (const Rule& rule : rules) {
    Truth truth = evaluate_condition(rule.when, facts);
    Truth confirmation = truth == Truth::yes && rule.confirmed_by ? evaluate_condition(*rule.confirmed_by, facts) : Truth::yes;
    if (confirmation == Truth::no) truth = Truth::no;
    truths.push_back(truth);
    unconfirmed.push_back(truth == Truth::yes && confirmation == Truth::unknown);
    if (truths.back() == Truth::yes) {
      fired.push_back(rule.id);
    }
  }
  auto superseders = [&](const Rule& rule) {
    std::vector<std::string> out;
    for (const RuleRef& ref : rule.superseded_by) {
      if (std::find(fired.begin(), fired.end(), ref.id) != fired.end()) {
        out.push_back(ref.id);
      }
    }
    return out;
  };

  Evaluation evaluation;
  std::vector<std::pair<std::string, std::string>> explained;  // (superseding id, dropped id)
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& rule = rules[i];
    if (truths[i] == Truth::no) {
      continue;
    }
    std::vector<std::string> by = superseders(rule);
    if (!by.empty()) {
      if (truths[i] == Truth::yes) {
        for (const std::string& id : by) {
          explained.emplace_back(id, rule.id);
        }
      }
      continue;
    }
    if (truths[i] == Truth::yes) {
      evaluation.findings.push_back(make_finding(rule, facts));
      if (unconfirmed[i]) {
        evaluation.findings.back().confirmed = false;
        evaluation.findings.back().unconfirmed = unconfirmed_text(rule, facts);
      }
    } else {
      evaluation.inconclusive.push_back(make_inconclusive(rule, facts));
    }
  }
  // A dropped finding is a consequence of the reported findings that superseded it, directly
  // or through other dropped findings (A superseded by B superseded by C: C explains A and B).
  for (Finding& finding : evaluation.findings) {
    std::vector<std::string> reach = {finding.id};
    for (std::size_t i = 0; i < reach.size(); ++i) {
      for (const auto& [by, dropped] : explained) {
        if (by == reach[i] && dropped != finding.id) {
          add_unique(finding.consequences, dropped);
          if (std::find(reach.begin(), reach.end(), dropped) == reach.end()) {
            reach.push_back(dropped);
          }
        }
      }
    }
  }
  std::map<std::string_view, int> ranks;
  for (const Rule& rule : rules) {
    ranks[rule.id] = rule.rank;
  }
  std::stable_sort(evaluation.findings.begin(), evaluation.findings.end(), [&](const Finding& a, const Finding& b) {
    if (severity_rank(a.severity) != severity_rank(b.severity)) {
      return severity_rank(a.severity) < severity_rank(b.severity);
    }
    // What CUDA confirmed (or the facts prove) before what only the files suggest: offline, a GPU
    // the version tables show unsupported comes before the unconfirmed consequences it explains.
    if (a.confirmed != b.confirmed) return a.confirmed;
    return ranks[a.id] < ranks[b.id];
  });
  return evaluation;
}

}  // namespace gd
