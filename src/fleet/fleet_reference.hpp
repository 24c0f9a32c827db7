#pragma once
// `gpudoctor fleet --reference FILE`: the known-good configuration every node is compared with,
// instead of the majority (which hides a drift the whole fleet shares). FILE is a report of a
// node known to be good (`gpudoctor --json`), or a small JSON object of fact values:
//   {"kmod.nvidia.version": "580.95.05", "kmod.nvidia_peermem.loaded": true}
// whose keys may name facts the layers do not compare (they are added to the comparison), never
// a fact that differs by nature (fleet/fact_layers' volatile facts). Pure.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet_facts.hpp"

namespace gd {

/// The reference's value of each of `selection`'s keys (nullopt where it does not say), adding
/// the keys a small reference names; or why `text` is no reference (one line, never quoting it).
std::expected<std::vector<std::optional<std::string>>, std::string> read_fleet_reference(std::string_view text,
                                                                                      FleetFactSelection& selection);

}  // namespace gd
