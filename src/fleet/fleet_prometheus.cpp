#include "fleet/fleet_prometheus.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>
#include <vector>


namespace gd {
namespace {

// The contract (README "Fleet metrics"). One file per fleet run: a sweep's grouping at one time,
// so every family is a gauge, as the node's are.
constexpr std::array<PromFamily, 8> k_families = {{
    {"gpudoctor_fleet_info", "gauge", "version,metrics_version,scope",
     "Always 1: the gpudoctor version that grouped the reports, the version of these fleet families, and the scope "
     "(all, or node with --scope node: the environment's findings are no root cause)."},
    {"gpudoctor_fleet_last_run_timestamp_seconds", "gauge", "", "Unix time at which this gpudoctor fleet run ended."},
    {"gpudoctor_fleet_nodes", "gauge", "verdict",
     "Nodes by the severity of their root cause: healthy (no error or warning), warning, error; each node counted "
     "once."},
    {"gpudoctor_fleet_group_nodes", "gauge", "root_cause,severity,action",
     "Nodes in each root-cause group (the rule id of the first error or warning of the node's report; \"\" with "
     "severity ok and action none for the healthy group); gpudoctor explain ID tells what it means."},
    {"gpudoctor_fleet_reports", "gauge", "", "Reports read, a node's older duplicates included."},
    {"gpudoctor_fleet_duplicate_nodes", "gauge", "", "Nodes reported more than once (the newer report counts)."},
    {"gpudoctor_fleet_unreadable_inputs", "gauge", "",
     "Inputs, or parts of a stream, that held no report this version can count (listed by gpudoctor fleet)."},
    {"gpudoctor_fleet_outlier_nodes", "gauge", "fact,value",
     "Nodes holding each value of a configuration fact that differs across the fleet (with --reference: from the "
     "reference node); no sample when nothing differs."},
}};

void start(PromWriter& out, std::string_view name) {
  for (const PromFamily& f : k_families) {
    if (f.name == name) {
      out.family(f.name, f.type, f.help);
      return;
    }
  }
  throw std::logic_error("no Prometheus fleet family " + std::string(name));
}

std::string count_of(std::size_t n) { return prom_int(static_cast<std::int64_t>(n)); }

}  // namespace

std::span<const PromFamily> fleet_prometheus_families() { return k_families; }

void write_fleet_outliers(PromWriter& out, std::span<const FleetOutlierSample> outliers) {
  start(out, "gpudoctor_fleet_outlier_nodes");
  for (const FleetOutlierSample& o : outliers) {
    out.sample({{"fact", std::string(o.fact)}, {"value", std::string(o.value)}}, prom_int(o.count));
  }
}

std::string render_fleet_prometheus(const FleetSummary& summary, std::span<const FleetOutlierSample> outliers,
                                    double finished_unix_s) {
  PromWriter out;
  start(out, "gpudoctor_fleet_info");
  out.sample({{"version", GD_VERSION},
              {"metrics_version", std::to_string(k_fleet_metrics_version)},
              {"scope", summary.scope == CauseScope::node ? "node" : "all"}},
             "1");
  start(out, "gpudoctor_fleet_last_run_timestamp_seconds");
  out.sample({}, prom_seconds(finished_unix_s));

  // A group's severity is its root cause's ("error", "warning"; "ok" when healthy). The three
  // verdicts are always written, so a sum or a ratio never misses a series; a severity a newer
  // gpudoctor may add is a verdict of its own after them, by the report's word.
  std::vector<std::pair<std::string, std::int64_t>> verdicts = {{"healthy", 0}, {"warning", 0}, {"error", 0}};
  for (const FleetGroup& g : summary.groups) {
    std::string verdict = g.root_cause ? g.severity : "healthy";
    auto it = std::find_if(verdicts.begin(), verdicts.end(), [&](const auto& v) { return v.first == verdict; });
    if (it == verdicts.end()) it = verdicts.insert(verdicts.end(), {verdict, 0});
    it->second += static_cast<std::int64_t>(g.nodes.size());
  }
  start(out, "gpudoctor_fleet_nodes");
  for (const auto& [verdict, nodes] : verdicts) out.sample({{"verdict", verdict}}, prom_int(nodes));

  start(out, "gpudoctor_fleet_group_nodes");
  for (const FleetGroup& g : summary.groups) {
    out.sample({{"root_cause", g.root_cause.value_or("")},
                {"severity", g.root_cause ? g.severity : "ok"},
                {"action", g.root_cause ? g.action : "none"}},
               count_of(g.nodes.size()));
  }
  start(out, "gpudoctor_fleet_reports");
  out.sample({}, prom_int(summary.reports));
  start(out, "gpudoctor_fleet_duplicate_nodes");
  out.sample({}, count_of(summary.duplicates.size()));
  start(out, "gpudoctor_fleet_unreadable_inputs");
  out.sample({}, count_of(summary.unreadable.size()));

  write_fleet_outliers(out, outliers);
  return out.text();
}

}  // namespace gd
