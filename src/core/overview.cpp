#include "core/overview.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd {

std::string_view to_string(AreaStatus status) {
  switch (status) {
    case AreaStatus::ok: return "ok";
    case AreaStatus::info: return "info";
    case AreaStatus::warning: return "warning";
    case AreaStatus::error: return "error";
    case AreaStatus::unknown: return "unknown";
    case AreaStatus::skipped: return "skipped";
  }
  return "?";
}

}  // namespace gd

namespace gd::areas {

AreaLine start_line(const Layer& layer) {
  return AreaLine{std::string(layer.id), std::string(layer.title), AreaStatus::ok, "", {}};
}

bool answers_for(const Layer& layer, std::string_view area) {
  return std::find(layer.areas.begin(), layer.areas.end(), area) != layer.areas.end();
}

bool is_layer_rule(const Layer& layer, std::string_view rule_id) {
  std::string_view folder = rule_id.substr(0, rule_id.find('.'));
  return folder.size() < rule_id.size() &&
         std::any_of(layer.rule_folders.begin(), layer.rule_folders.end(), [&](const RuleFolder& f) { return f.folder == folder; });
}

AreaStatus worst_finding_status(const std::vector<Finding>& findings, const Layer& layer) {
  AreaStatus status = AreaStatus::ok;
  for (const auto& finding : findings) {
    if (!answers_for(layer, finding.area)) {
      continue;
    }
    if (finding.severity == Severity::error) {
      return AreaStatus::error;
    }
    if (finding.severity == Severity::warning) {
      status = AreaStatus::warning;
    } else if (status == AreaStatus::ok) {
      status = AreaStatus::info;
    }
  }
  return status;
}

AreaStatus status_for(const std::vector<Finding>& findings, const Layer& layer, AreaStatus fallback) {
  AreaStatus from_findings = worst_finding_status(findings, layer);
  return from_findings == AreaStatus::ok ? fallback : from_findings;
}

std::string unknown_reason(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  if (!fact) {
    return "not collected";
  }
  return fact->reason.empty() ? std::string(to_string(fact->state)) : fact->reason;
}

bool is_left_out(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  return fact && fact->state == FactState::unknown && fact->reason.starts_with("not checked (--scope");
}

std::vector<std::string> list_of(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  if (fact && fact->state == FactState::present) {
    if (auto* v = std::get_if<std::vector<std::string>>(&fact->value)) {
      return *v;
    }
  }
  return {};
}

std::string plural(std::int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

bool is_preflight(const FactSet& facts) { return facts.is_present("target.gpu"_fact); }

}  // namespace gd::areas
