#include "report/report_scrub.hpp"

#include "report/json_scrub.hpp"
#include "util/secret_scrub.hpp"

namespace gd {
namespace {

void scrub(std::string& text) { text = scrub_known_secrets(text); }

void scrub_all(std::vector<std::string>& texts) {
  for (std::string& text : texts) scrub(text);
}

void scrub_evidence(std::vector<Evidence>& evidence) {
  for (Evidence& e : evidence) {
    scrub(e.value);
    scrub(e.source);
  }
}

}  // namespace

Report scrub_report_secrets(const Report& report) {
  Report out = report;
  scrub(out.run.source);
  scrub(out.run.host);
  for (AreaLine& area : out.areas) {
    scrub(area.summary);
    scrub_all(area.details);
  }
  for (Finding& f : out.findings) {
    scrub(f.title);
    scrub(f.message);
    scrub(f.why);
    scrub(f.unconfirmed);
    scrub_all(f.fix);
    scrub_all(f.references);
    scrub_evidence(f.evidence);
  }
  for (Inconclusive& item : out.inconclusive) {
    scrub(item.title);
    scrub_evidence(item.unknown_facts);
  }
  FactSet facts;
  for (const auto& [name, fact] : report.facts.all()) {
    Fact copy = fact;
    if (auto* text = std::get_if<std::string>(&copy.value)) scrub(*text);
    if (auto* list = std::get_if<std::vector<std::string>>(&copy.value)) scrub_all(*list);
    scrub(copy.reason);
    scrub(copy.source);
    facts.put(std::move(copy));
  }
  out.facts = std::move(facts);
  if (out.capture) scrub_json_secrets(*out.capture);
  return out;
}

}  // namespace gd
