#include "report/report_scrub.hpp"

#include <type_traits>
#include <vector>

#include "report/json_scrub.hpp"
#include "util/secret_scrub.hpp"

namespace gd {
namespace {

/// Calls `visit` on every string of the report that leaves the process, except the facts and
/// the capture (their containers differ between the check and the scrub). One list of fields
/// for both passes, so the check never misses a field the scrub covers.
template <typename ReportT, typename Visit>
void each_report_string(ReportT& report, Visit&& visit) {
  auto all = [&](auto& texts) {
    for (auto& text : texts) visit(text);
  };
  auto evidence = [&](auto& items) {
    for (auto& e : items) {
      visit(e.value);
      visit(e.source);
    }
  };
  visit(report.run.source);
  visit(report.run.host);
  for (auto& area : report.areas) {
    visit(area.summary);
    all(area.details);
  }
  for (auto& f : report.findings) {
    visit(f.title);
    visit(f.message);
    visit(f.why);
    visit(f.unconfirmed);
    all(f.fix);
    all(f.references);
    evidence(f.evidence);
  }
  for (auto& item : report.inconclusive) {
    visit(item.title);
    evidence(item.unknown_facts);
  }
}

template <typename FactT, typename Visit>
void each_fact_string(FactT& fact, Visit&& visit) {
  if (auto* text = std::get_if<std::string>(&fact.value)) visit(*text);
  if (auto* list = std::get_if<std::vector<std::string>>(&fact.value)) {
    for (auto& item : *list) visit(item);
  }
  visit(fact.reason);
  visit(fact.source);
}

bool json_holds_secret(const nlohmann::json& document) {
  std::vector<const nlohmann::json*> pending{&document};
  while (!pending.empty()) {
    const nlohmann::json* node = pending.back();
    pending.pop_back();
    if (node->is_string()) {
      if (holds_known_secret(node->get_ref<const std::string&>())) return true;
    } else if (node->is_array()) {
      for (const nlohmann::json& item : *node) pending.push_back(&item);
    } else if (node->is_object()) {
      for (auto it = node->begin(); it != node->end(); ++it) {
        if (holds_known_secret(it.key())) return true;
        pending.push_back(&it.value());
      }
    }
  }
  return false;
}

}  // namespace

bool report_holds_secrets(const Report& report) {
  bool found = false;
  auto check = [&](const std::string& text) { found = found || holds_known_secret(text); };
  each_report_string(report, check);
  for (const auto& [name, fact] : report.facts.all()) each_fact_string(fact, check);
  return found || (report.capture && json_holds_secret(*report.capture));
}

Report scrub_report_secrets(const Report& report) {
  Report out = report;
  auto scrub = [](std::string& text) { text = scrub_known_secrets(text); };
  each_report_string(out, scrub);
  FactSet facts;
  for (const auto& [name, fact] : report.facts.all()) {
    Fact copy = fact;
    each_fact_string(copy, scrub);
    facts.put(std::move(copy));
  }
  out.facts = std::move(facts);
  if (out.capture) scrub_json_secrets(*out.capture);
  return out;
}

}  // namespace gd
