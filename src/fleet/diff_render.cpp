#include "fleet/diff_render.hpp"

#include "fleet/bounded_text.hpp"

namespace gd {
namespace {

using nlohmann::json;

constexpr std::size_t k_max_value_chars = 200;  // a fact's value in the text, unless -v

std::string side_line(char letter, const DiffSide& side) {
  std::string out = std::string(1, letter) + ": " + printable(side.label);
  if (side.kind == "capture") out += " (a capture, replayed)";
  if (!side.host.empty()) out += ", node " + printable(side.host);
  return out + "\n";
}

void findings_text(std::string& out, const std::string& heading, const std::vector<FindingBrief>& findings) {
  out += heading + (findings.empty() ? ": none\n" : " (" + std::to_string(findings.size()) + "):\n");
  for (const FindingBrief& f : findings) {
    out += "  " + printable_cut(f.severity, 16) + " [" + printable_cut(f.id, 128) + "] " + printable_cut(f.title, 300);
    if (!f.action.empty()) out += " (" + printable_cut(f.action, 32) + ")";
    out += "\n";
  }
}

json briefs_json(const std::vector<FindingBrief>& findings) {
  json out = json::array();
  for (const FindingBrief& f : findings) {
    out.push_back({{"id", f.id}, {"severity", f.severity}, {"title", f.title}, {"scope", f.scope}, {"action", f.action}});
  }
  return out;
}

json side_json(const DiffSide& side) { return {{"path", side.label}, {"kind", side.kind}, {"host", side.host}}; }

}  // namespace

std::string render_diff_text(const DiffSide& a, const DiffSide& b, const ReportDiff& diff, const DiffTextOptions& options) {
  std::string out = side_line('A', a) + side_line('B', b) + "\n";
  findings_text(out, "Findings only in A", diff.only_a);
  findings_text(out, "Findings only in B", diff.only_b);
  if (!diff.both.empty()) out += "Findings in both: " + std::to_string(diff.both.size()) + "\n";
  out += "\n";
  const std::string left_out = std::to_string(diff.volatile_left_out) +
                               " volatile facts differ (timings, PIDs, UUIDs, the host name): -v shows them";
  if (diff.facts_differing == 0) {
    out += "No facts differ" + (diff.volatile_left_out > 0 ? " but volatile ones: " + left_out : std::string()) + ".\n";
    return out;
  }
  out += std::to_string(diff.facts_differing) + (diff.facts_differing == 1 ? " fact differs" : " facts differ") +
         ", by layer:\n";
  for (const LayerDifferences& layer : diff.layers) {
    out += layer.title + "\n";
    for (const FactDifference& d : layer.facts) {
      auto value = [&](const json& fact) {
        std::string text = fact_value_text(fact);
        return options.verbose ? printable(text) : printable_cut(text, k_max_value_chars);
      };
      out += "  " + printable(d.fact) + (d.is_volatile ? " (volatile)" : "") + "\n";
      out += "    A: " + value(d.a) + "\n";
      out += "    B: " + value(d.b) + "\n";
    }
  }
  if (diff.volatile_left_out > 0) out += "\n" + left_out + ".\n";
  return out;
}

json render_diff_json(const DiffSide& a, const DiffSide& b, const ReportDiff& diff) {
  json layers = json::array();
  for (const LayerDifferences& layer : diff.layers) {
    json facts = json::array();
    for (const FactDifference& d : layer.facts) {
      facts.push_back({{"fact", d.fact}, {"a", d.a}, {"b", d.b}, {"volatile", d.is_volatile}});
    }
    layers.push_back({{"layer", layer.id}, {"title", layer.title}, {"facts", facts}});
  }
  return {{"diff_schema_version", k_diff_schema_version},
          {"gpudoctor_version", GD_VERSION},
          {"a", side_json(a)},
          {"b", side_json(b)},
          {"same", diff.same()},
          {"findings", {{"only_a", briefs_json(diff.only_a)}, {"only_b", briefs_json(diff.only_b)}, {"both", diff.both}}},
          {"facts", layers},
          {"facts_differing", diff.facts_differing},
          {"volatile_left_out", diff.volatile_left_out}};
}

}  // namespace gd
