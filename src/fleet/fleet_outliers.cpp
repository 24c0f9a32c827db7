#include "fleet/fleet_outliers.hpp"

#include <algorithm>

#include "fleet/bounded_text.hpp"

namespace gd {

std::optional<FleetOutlier> outlier_of(FactColumn column) {
  auto& by_value = column.nodes_by_value;
  if (column.reference) {
    // Every node has the known-good value (or none has the fact): nothing is odd.
    bool all_expected = by_value.empty() || (by_value.size() == 1 && by_value.begin()->first == *column.reference);
    if (all_expected) return std::nullopt;
  } else if (by_value.size() < 2) {
    return std::nullopt;
  }

  FleetOutlier out{column.fact, column.reference, {}};
  for (auto& [value, nodes] : by_value) {
    std::sort(nodes.begin(), nodes.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
    out.values.push_back({value, static_cast<std::int64_t>(nodes.size()), std::move(nodes), false});
  }
  if (column.reference) {
    auto it = std::find_if(out.values.begin(), out.values.end(),
                           [&](const OutlierValue& v) { return v.value == *column.reference; });
    if (it == out.values.end()) {
      // No node has it: the fleet-wide drift a majority would hide.
      out.values.push_back({*column.reference, 0, {}, true});
    } else {
      it->expected = true;
    }
  } else {
    auto most = std::max_element(out.values.begin(), out.values.end(),
                                 [](const OutlierValue& a, const OutlierValue& b) { return a.count < b.count; });
    bool tied = std::count_if(out.values.begin(), out.values.end(),
                              [&](const OutlierValue& v) { return v.count == most->count; }) > 1;
    if (!tied) most->expected = true;
  }
  for (OutlierValue& v : out.values) {
    if (v.expected) v.nodes.clear();  // the many: their count says enough (a fleet of 10,000)
  }
  // The odd ones first, fewest nodes first; between equals by value; the expected value last.
  std::stable_sort(out.values.begin(), out.values.end(), [](const OutlierValue& a, const OutlierValue& b) {
    if (a.expected != b.expected) return b.expected;
    if (a.count != b.count) return a.count < b.count;
    return a.value < b.value;
  });
  return out;
}

}  // namespace gd
