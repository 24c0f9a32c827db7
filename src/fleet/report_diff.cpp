#include "fleet/report_diff.hpp"

#include <map>
#include <set>

#include "fleet/fact_layers.hpp"
#include "report/json_scrub.hpp"
#include "report/report.hpp"
#include "util/secret_scrub.hpp"

namespace gd {
namespace {

using nlohmann::json;

std::string string_at(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// What is compared of a fact: its state, value and, for an unknown one, why it is unknown; not
/// where it was read, nor why a fact is absent ("no GPU concerned", "cuInit did not succeed":
/// the absence is the difference, and the findings say what caused it).
json comparable(const json& fact) {
  if (!fact.is_object()) return json{{"state", "present"}, {"value", fact}};  // a bare value
  json out = json::object();
  for (const char* key : {"state", "value", "reason"}) {
    if (auto it = fact.find(key); it != fact.end()) out[key] = *it;
  }
  if (out.value("state", "") == "absent") out.erase("reason");
  return out;
}

/// A fact one report has as absent and the other does not have at all (a GPU's facts when the
/// other node has no such GPU, a retry's facts when no retry ran) is no difference: neither has a
/// value.
bool is_absent(const json& fact) { return fact.is_null() || (fact.is_object() && fact.value("state", "") == "absent"); }

std::vector<FindingBrief> briefs_without(const json& findings, const std::set<std::string>& others) {
  std::vector<FindingBrief> out;
  for (const json& f : findings) {
    std::string id = string_at(f, "id");
    if (others.count(id)) continue;
    out.push_back({id, string_at(f, "severity"), string_at(f, "title"), string_at(f, "scope"), string_at(f, "action")});
  }
  return out;
}

std::set<std::string> ids_of(const json& findings) {
  std::set<std::string> out;
  for (const json& f : findings) out.insert(string_at(f, "id"));
  return out;
}

}  // namespace

std::expected<DiffSide, std::string> diff_side_from_report(json report, std::string label, std::string kind) {
  if (!report.is_object()) return std::unexpected(std::string("not a gpudoctor report: the JSON is not an object"));
  auto version = report.find("schema_version");
  if (version == report.end() || !version->is_number_integer()) {
    return std::unexpected(std::string("not a gpudoctor report or capture: it has no schema_version"));
  }
  if (version->get<std::int64_t>() > k_report_schema_version) {
    return std::unexpected("schema_version " + std::to_string(version->get<std::int64_t>()) +
                           " is newer than this gpudoctor reads (" + std::to_string(k_report_schema_version) +
                           "): compare it with a newer gpudoctor");
  }
  auto findings = report.find("findings");
  auto facts = report.find("facts");
  if (findings == report.end() || !findings->is_array()) {
    return std::unexpected(std::string("not a gpudoctor report: it has no findings list"));
  }
  if (facts == report.end() || !facts->is_object()) {
    return std::unexpected(std::string("not a gpudoctor report: it has no facts"));
  }
  for (const json& f : *findings) {
    if (string_at(f, "id").empty()) return std::unexpected(std::string("not a gpudoctor report: a finding has no id"));
  }
  DiffSide side;
  side.label = std::move(label);
  side.kind = std::move(kind);
  side.host = string_at(report.value("run", json::object()), "host");
  side.findings = std::move(*findings);
  side.facts = std::move(*facts);
  // Printed again from another node's report (another binary's, or edited by hand): no token of
  // a known shape goes with it (util/secret_scrub). Both sides alike, so a diff is not changed.
  side.host = scrub_known_secrets(side.host);
  scrub_json_secrets(side.findings);
  scrub_json_secrets(side.facts);
  return side;
}

ReportDiff diff_reports(const DiffSide& a, const DiffSide& b, ShowVolatile show_volatile) {
  ReportDiff out;
  std::set<std::string> ids_a = ids_of(a.findings);
  std::set<std::string> ids_b = ids_of(b.findings);
  out.only_a = briefs_without(a.findings, ids_b);
  out.only_b = briefs_without(b.findings, ids_a);
  for (const json& f : a.findings) {
    if (std::string id = string_at(f, "id"); ids_b.count(id)) out.both.push_back(id);
  }

  // Every name either report has, in name order within each layer.
  std::map<std::string, std::pair<const json*, const json*>> names;
  for (auto it = a.facts.begin(); it != a.facts.end(); ++it) names[it.key()].first = &it.value();
  for (auto it = b.facts.begin(); it != b.facts.end(); ++it) names[it.key()].second = &it.value();
  std::vector<LayerDifferences> layers;
  for (const DiffLayer& layer : diff_layers()) layers.push_back({std::string(layer.id), std::string(layer.title), {}});
  for (const auto& [name, pair] : names) {
    json left = pair.first ? comparable(*pair.first) : json(nullptr);
    json right = pair.second ? comparable(*pair.second) : json(nullptr);
    if (left == right || (is_absent(left) && is_absent(right))) continue;
    bool is_volatile = is_volatile_fact(name);
    if (is_volatile && show_volatile == ShowVolatile::no) {
      ++out.volatile_left_out;
      continue;
    }
    ++out.facts_differing;
    layers[diff_layer_of(name)].facts.push_back({name, std::move(left), std::move(right), is_volatile});
  }
  for (LayerDifferences& layer : layers) {
    if (!layer.facts.empty()) out.layers.push_back(std::move(layer));
  }
  return out;
}

std::string fact_value_text(const json& fact) {
  if (fact.is_null()) return "not in the report";
  std::string state = string_at(fact, "state");
  if (state == "absent") return "absent";
  if (state == "unknown") {
    std::string reason = string_at(fact, "reason");
    return reason.empty() ? "unknown" : "unknown (" + reason + ")";
  }
  auto value = fact.find("value");
  if (value == fact.end()) return state.empty() ? "?" : state;
  if (value->is_string()) return value->get<std::string>();
  if (value->is_array()) {
    std::string out = "[";
    for (const json& item : *value) {
      out += (out.size() > 1 ? ", " : "") + (item.is_string() ? item.get<std::string>() : item.dump());
    }
    return out + "]";
  }
  return value->dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace gd
