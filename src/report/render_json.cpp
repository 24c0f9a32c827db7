#include "report/render_json.hpp"

#include "report/verdict.hpp"
#include "rules/facts_json.hpp"

namespace gd {
namespace {

using nlohmann::json;

json evidence_json(const std::vector<Evidence>& evidence) {
  json out = json::array();
  for (const auto& e : evidence) {
    out.push_back({{"fact", e.fact}, {"value", e.value}, {"source", e.source}});
  }
  return out;
}

}  // namespace

nlohmann::json render_json(const Report& report) {
  json out;
  out["schema_version"] = k_report_schema_version;
  out["gpudoctor_version"] = report.run.gpudoctor_version;
  out["run"] = {{"mode", to_string(report.run.mode)},
                {"source", report.run.source},
                {"duration_ms", report.run.duration_ms},
                {"uid", report.run.uid},
                {"host", report.run.host},
                {"scope", to_string(report.run.scope)},
                {"started", report.run.started}};
  int errors = report.count(Severity::error);
  int warnings = report.count(Severity::warning);
  out["summary"] = {{"status", errors ? "error" : warnings ? "warning" : "ok"},
                    {"errors", errors},
                    {"warnings", warnings},
                    {"infos", report.count(Severity::info)},
                    {"inconclusive", report.inconclusive.size()},
                    {"left_out", report.left_out}};
  // The last line's conclusion, for tools that must not mistake "nothing was checked" for healthy.
  Verdict verdict = verdict_of(report);
  std::size_t unconfirmed = 0;
  for (const Finding& f : report.findings) unconfirmed += f.confirmed ? 0 : 1;
  out["summary"]["unconfirmed"] = unconfirmed;
  out["summary"]["verdict"] = to_string(verdict.kind);
  out["summary"]["verdict_text"] = verdict.text;
  json areas = json::array();
  for (const auto& area : report.areas) {
    areas.push_back({{"id", area.id},
                     {"title", area.title},
                     {"status", std::string(to_string(area.status))},
                     {"summary", area.summary},
                     {"details", area.details}});
  }
  out["areas"] = areas;
  json findings = json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"id", f.id},
                        {"severity", std::string(to_string(f.severity))},
                        {"area", f.area},
                        {"scope", std::string(to_string(f.scope))},
                        {"action", std::string(to_string(f.action))},
                        {"title", f.title},
                        {"message", f.message},
                        {"why", f.why},
                        {"fix", f.fix},
                        {"references", f.references},
                        {"evidence", evidence_json(f.evidence)},
                        {"consequences", f.consequences},
                        {"confirmed", f.confirmed},
                        {"unconfirmed", f.unconfirmed}});
  }
  out["findings"] = findings;
  json inconclusive = json::array();
  for (const auto& item : report.inconclusive) {
    inconclusive.push_back({{"id", item.id}, {"title", item.title}, {"unknown_facts", evidence_json(item.unknown_facts)}});
  }
  out["inconclusive"] = inconclusive;
  out["facts"] = facts_to_json(report.facts);
  if (report.capture) {
    out["capture"] = *report.capture;
  }
  return out;
}

}  // namespace gd
