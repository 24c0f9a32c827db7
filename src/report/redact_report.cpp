#include "report/redact_report.hpp"

namespace gd {
namespace {

void redact_all(std::vector<std::string>& texts, const Redactor& r) {
  for (std::string& text : texts) text = r.text(text);
}

void redact_evidence(std::vector<Evidence>& evidence, const Redactor& r) {
  for (Evidence& e : evidence) {
    e.value = r.text(e.value);
    e.source = r.text(e.source);
  }
}

}  // namespace

Report redact_report(const Report& report, const Redactor& r) {
  Report out = report;
  out.run.source = r.text(out.run.source);
  if (!out.run.host.empty()) out.run.host = "<host>";
  for (AreaLine& area : out.areas) {
    area.summary = r.text(area.summary);
    redact_all(area.details, r);
  }
  for (Finding& f : out.findings) {
    f.title = r.text(f.title);
    f.message = r.text(f.message);
    f.why = r.text(f.why);
    redact_all(f.fix, r);
    redact_all(f.references, r);
    redact_evidence(f.evidence, r);
  }
  for (Inconclusive& item : out.inconclusive) {
    item.title = r.text(item.title);
    redact_evidence(item.unknown_facts, r);
  }
  FactSet facts;
  for (const auto& [name, fact] : report.facts.all()) {
    Fact copy = fact;
    if (auto* text = std::get_if<std::string>(&copy.value)) *text = r.text(*text);
    if (auto* list = std::get_if<std::vector<std::string>>(&copy.value)) redact_all(*list, r);
    copy.reason = r.text(copy.reason);
    copy.source = r.text(copy.source);
    facts.put(std::move(copy));
  }
  out.facts = std::move(facts);
  if (out.capture) r.json(*out.capture);
  return out;
}

}  // namespace gd
