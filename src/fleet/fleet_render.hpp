#pragma once
// `gpudoctor fleet` output: a table with one row per root cause, largest first, then the
// configuration facts that differ between the nodes (the odd ones out), the nodes reported more
// than once and the inputs that could not be read; or the fleet JSON, a versioned
// contract documented in README.md ("Fleet JSON"). Pure functions of the summary.

#include <string>

#include <nlohmann/json.hpp>

#include "fleet/fleet_tally.hpp"

namespace gd {

/// Fields are only ever added within a version; a change of meaning or a removal bumps it.
inline constexpr int k_fleet_schema_version = 1;

struct FleetTextOptions {
  bool verbose = false;  ///< every node name, duplicate and unreadable input, fix steps uncut
};

std::string render_fleet_text(const FleetSummary& summary, const FleetTextOptions& options);
nlohmann::json render_fleet_json(const FleetSummary& summary);
/// For a bug tracker or a chat: the groups as a table and the facts that differ as a list.
std::string render_fleet_markdown(const FleetSummary& summary);

}  // namespace gd
