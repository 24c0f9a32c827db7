#pragma once
// The odd one out: for one configuration fact (fleet/fleet_facts), the values the fleet's nodes
// have, and the nodes that differ from what they should have. What they should have is the
// reference's value when a --reference gives one, else the majority's (the value more nodes
// have than any other); with no such value (a tie) every value's nodes are named. Pure.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gd {

struct OutlierValue {
  std::string value;
  std::int64_t count = 0;
  std::vector<std::string> nodes;  ///< natural order; empty for the expected value (count says how many)
  bool expected = false;           ///< the reference's or the majority's value
};

struct FleetOutlier {
  std::string fact;                      ///< the key (fleet/fleet_facts)
  std::optional<std::string> reference;  ///< the reference's value, when the comparison is with one
  std::vector<OutlierValue> values;      ///< the odd ones first (fewest nodes first), the expected value last
};

/// One fact across the fleet: each value and the nodes that have it (nodes without a value are
/// not in it).
struct FactColumn {
  std::string fact;
  std::map<std::string, std::vector<std::string>> nodes_by_value;
  std::optional<std::string> reference;
};

/// The fact's outlier entry, or nullopt when every node has the expected value (with a
/// reference: its value; without: one value on every node that has the fact).
std::optional<FleetOutlier> outlier_of(FactColumn column);

}  // namespace gd
