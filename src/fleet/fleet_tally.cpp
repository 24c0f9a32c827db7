#include "fleet/fleet_tally.hpp"

#include <algorithm>

#include "fleet/bounded_text.hpp"

namespace gd {
namespace {

// What --redact writes for run.host: such a report cannot be told from another node's.
constexpr std::string_view k_redacted_host = "<host>";

int severity_rank(std::string_view severity) {
  if (severity == "error") return 0;
  if (severity == "warning") return 1;
  if (severity == "ok") return 3;
  return 2;  // a severity a newer gpudoctor may add
}

}  // namespace

const DigestFinding* root_cause_of(const ReportDigest& digest, CauseScope scope) {
  for (const DigestFinding& f : digest.findings) {
    if (f.severity == "info") continue;  // a note: the node works (summary.status "ok", exit 0)
    if (scope == CauseScope::node && f.scope == "environment") continue;  // whoever ran it, not the node
    return &f;
  }
  return nullptr;
}

FleetTally::FleetTally(CauseScope scope, FleetComparison comparison)
    : m_scope(scope),
      m_comparison(std::move(comparison)),
      m_value_ids(m_comparison.facts.size()),
      m_value_texts(m_comparison.facts.size()) {}

std::uint32_t FleetTally::value_id(std::size_t fact, const std::optional<std::string>& value) {
  if (!value) return 0;
  auto& ids = m_value_ids[fact];
  if (auto it = ids.find(*value); it != ids.end()) return it->second;
  m_value_texts[fact].push_back(*value);
  auto id = static_cast<std::uint32_t>(m_value_texts[fact].size());
  ids.emplace(*value, id);
  return id;
}

void FleetTally::add_report(const std::string& source, const ReportDigest& digest,
                            const std::vector<std::optional<std::string>>& values) {
  ++m_reports;
  const bool named = !digest.host.empty() && digest.host != k_redacted_host;
  const std::string name = named ? digest.host : source;
  Node node{source, digest.started, std::nullopt, {}, {}};
  if (!m_comparison.facts.empty()) {
    node.values.resize(m_comparison.facts.size());
    for (std::size_t i = 0; i < values.size() && i < node.values.size(); ++i) node.values[i] = value_id(i, values[i]);
  }
  if (const DigestFinding* cause = root_cause_of(digest, m_scope)) {
    node.cause = cause->id;
    // The first report of a cause describes it (severity and title are the rule's, the same in each).
    m_causes.try_emplace(cause->id, Cause{cause->severity, cause->title, cause->action, cause->first_fix});
  }
  auto [it, inserted] = m_nodes.try_emplace(name, node);
  if (inserted) return;
  Node& known = it->second;
  // The newer report counts; timestamps have one fixed width, so text order is time order. A
  // report without one is older than one with; between equals, the one read last counts.
  const bool newer = known.started.empty() || (!node.started.empty() && node.started >= known.started);
  if (newer) {
    node.ignored = std::move(known.ignored);
    node.ignored.push_back(known.source);
    known = std::move(node);
  } else {
    known.ignored.push_back(source);
  }
}

void FleetTally::add_unreadable(std::string path, std::string reason) {
  m_unreadable.push_back({std::move(path), std::move(reason)});
}

FleetSummary FleetTally::summary() const {
  FleetSummary out;
  out.scope = m_scope;
  out.reports = m_reports;
  out.nodes = static_cast<std::int64_t>(m_nodes.size());
  out.unreadable = m_unreadable;
  std::map<std::string, FleetGroup> by_cause;
  FleetGroup healthy{std::nullopt, "ok", "no problems found", "none", "", {}};
  for (const auto& [name, node] : m_nodes) {
    if (!node.ignored.empty()) out.duplicates.push_back({name, node.source, node.ignored});
    if (!node.cause) {
      healthy.nodes.push_back(name);
      continue;
    }
    auto [it, inserted] = by_cause.try_emplace(*node.cause);
    FleetGroup& group = it->second;
    if (inserted) {
      const Cause& cause = m_causes.at(*node.cause);
      group = {*node.cause, cause.severity, cause.title, cause.action, cause.first_fix, {}};
    }
    group.nodes.push_back(name);
  }
  if (!healthy.nodes.empty()) out.groups.push_back(std::move(healthy));
  for (auto& [id, group] : by_cause) out.groups.push_back(std::move(group));
  for (FleetGroup& group : out.groups) {
    std::sort(group.nodes.begin(), group.nodes.end(), [](const std::string& a, const std::string& b) {
      return natural_less(a, b);
    });
  }
  // Largest first; between equals the graver, then by id (healthy, with no id, after the rest).
  std::stable_sort(out.groups.begin(), out.groups.end(), [](const FleetGroup& a, const FleetGroup& b) {
    if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
    if (severity_rank(a.severity) != severity_rank(b.severity)) return severity_rank(a.severity) < severity_rank(b.severity);
    return a.root_cause.value_or("~") < b.root_cause.value_or("~");
  });
  std::sort(out.duplicates.begin(), out.duplicates.end(),
            [](const FleetDuplicate& a, const FleetDuplicate& b) { return natural_less(a.node, b.node); });

  out.has_reference = !m_comparison.reference.empty();
  for (std::size_t fact = 0; fact < m_comparison.facts.size(); ++fact) {
    FactColumn column{m_comparison.facts[fact], {}, std::nullopt};
    if (fact < m_comparison.reference.size()) column.reference = m_comparison.reference[fact];
    for (const auto& [name, node] : m_nodes) {
      std::uint32_t id = node.values.empty() ? 0 : node.values[fact];
      if (id != 0) column.nodes_by_value[m_value_texts[fact][id - 1]].push_back(name);
    }
    if (auto outlier = outlier_of(std::move(column))) out.outliers.push_back(std::move(*outlier));
  }
  return out;
}

}  // namespace gd
