#pragma once
// Groups a fleet's nodes by root cause, one report at a time: a report is reduced to its node's
// name, its time and the finding that is its root cause, and only that is kept, so the memory
// grows with the number of nodes, never with the size of the reports. Pure.
//
//   root cause   the first finding of severity error or warning (a report lists the most likely
//                cause first); none (healthy) when there is no such finding. With CauseScope::node,
//                the first such finding whose scope is not "environment": a report made with the
//                default --scope all then groups as if it had been made with --scope node.
//   node name    run.host; a report without one (run.host "" or "<host>", as --redact writes it)
//                is a node of its own, named by where it was read ("reports/a.json", "-:120").
//   duplicates   two reports of one node: the newer counts (run.started; a report with it is
//                newer than one without; between equals, the one read later), the other is named.
//   outliers     the node's value of each configuration fact the fleet compares (fleet/fleet_facts),
//                kept as a small number per fact (each distinct value's text is kept once), and
//                compared across the nodes in summary() (fleet/fleet_outliers).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_outliers.hpp"
#include "fleet/report_digest.hpp"

namespace gd {

/// Which findings may be a node's root cause.
enum class CauseScope { all, node };

struct FleetGroup {
  std::optional<std::string> root_cause;  ///< the rule id; nullopt: healthy
  std::string severity;                   ///< "error", "warning" (as the report says); "ok" when healthy
  std::string title;
  std::string action;                     ///< "reset-gpu", ...; "none" when healthy
  std::string first_fix;                  ///< the fix's first step (from one of its reports)
  std::vector<std::string> nodes;         ///< natural order
};

struct FleetDuplicate {
  std::string node;
  std::string counted;               ///< where the report that counts was read
  std::vector<std::string> ignored;  ///< the older reports of the node
};

struct FleetUnreadable {
  std::string path;
  std::string reason;
};

struct FleetSummary {
  std::int64_t nodes = 0;
  std::int64_t reports = 0;            ///< reports read (duplicates included)
  CauseScope scope = CauseScope::all;
  std::vector<FleetGroup> groups;      ///< largest first
  std::vector<FleetDuplicate> duplicates;
  std::vector<FleetUnreadable> unreadable;
  bool has_reference = false;          ///< outliers are against a --reference, not the majority
  std::vector<FleetOutlier> outliers;  ///< in the facts' order
};

/// What the fleet compares: the facts' keys and, with a --reference, the known-good value of
/// each (nullopt where the reference does not say: that fact is compared with the majority).
struct FleetComparison {
  std::vector<std::string> facts;
  std::vector<std::optional<std::string>> reference;  ///< empty without a --reference
};

/// The finding `digest` is grouped by, or nullptr when the node is healthy.
const DigestFinding* root_cause_of(const ReportDigest& digest, CauseScope scope);

class FleetTally {
 public:
  explicit FleetTally(CauseScope scope, FleetComparison comparison = {});

  /// One report, read from `source` (a path, "path:LINE" or "-:LINE"), and its node's value of
  /// each compared fact (FleetComparison's order; nullopt: the report does not say).
  void add_report(const std::string& source, const ReportDigest& digest,
                  const std::vector<std::optional<std::string>>& values = {});
  /// An input, or a stretch of one, that holds no report a fleet can count.
  void add_unreadable(std::string path, std::string reason);

  std::int64_t reports() const { return m_reports; }
  std::size_t unreadable_count() const { return m_unreadable.size(); }

  FleetSummary summary() const;

 private:
  struct Cause {
    std::string severity;
    std::string title;
    std::string action;
    std::string first_fix;
  };
  struct Node {
    std::string source;
    std::string started;
    std::optional<std::string> cause;  ///< key into m_causes; nullopt: healthy
    std::vector<std::string> ignored;  ///< older reports of this node
    std::vector<std::uint32_t> values; ///< per compared fact: 0 none, else 1 + index into m_value_texts
  };

  std::uint32_t value_id(std::size_t fact, const std::optional<std::string>& value);

  CauseScope m_scope;
  FleetComparison m_comparison;
  std::vector<std::map<std::string, std::uint32_t, std::less<>>> m_value_ids;  ///< per fact
  std::vector<std::vector<std::string>> m_value_texts;                          ///< per fact
  std::int64_t m_reports = 0;
  std::map<std::string, Node> m_nodes;
  std::map<std::string, Cause> m_causes;  ///< what was first read about each root cause
  std::vector<FleetUnreadable> m_unreadable;
};

}  // namespace gd
