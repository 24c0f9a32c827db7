#pragma once
// `gpudoctor fleet --format prometheus` (issue 27 item 3): the fleet summary as gauges, so that a
// sweep's grouping can feed a dashboard and an alert. The families, their labels and what their
// values mean are a contract documented in README.md ("Fleet metrics"): names never change,
// families and labels are only added (k_fleet_metrics_version says which set a file holds).
// Node names never become labels (10,000 of them would be 10,000 series each): they are in the
// fleet text and JSON. Pure functions of the summary.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "fleet/fleet_tally.hpp"
#include "report/prometheus_text.hpp"
#include "report/render_prometheus.hpp"  // PromFamily

namespace gd {

/// The version of the fleet families (gpudoctor_fleet_info's `metrics_version` label): bumped
/// when a family or label is added, never for a change of meaning (which would be a new name).
inline constexpr int k_fleet_metrics_version = 1;

/// One value of one configuration fact that differs across the fleet, as the fleet's outlier
/// view counts it ("outliers": [{fact, values: [{value, count, nodes}]}] in the fleet JSON): a
/// flat row so this renderer needs nothing but the strings and the count.
struct FleetOutlierSample {
  std::string_view fact;
  std::string_view value;
  std::int64_t count = 0;  ///< nodes holding this value
};

/// gpudoctor_fleet_outlier_nodes: one sample per (fact, value) of every fact that differs, every
/// value of it (the majority's too). The family is always written (HELP and TYPE), with no
/// sample when nothing differs.
void write_fleet_outliers(PromWriter& out, std::span<const FleetOutlierSample> outliers);

/// Every fleet family. `finished_unix_s`: when the fleet run ended (the staleness alert's clock).
std::string render_fleet_prometheus(const FleetSummary& summary, std::span<const FleetOutlierSample> outliers,
                                    double finished_unix_s);

/// The families, in output order (tests compare them with README's table).
std::span<const PromFamily> fleet_prometheus_families();

}  // namespace gd
