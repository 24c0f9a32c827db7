#include "fleet/fleet_render.hpp"

#include <algorithm>
#include <vector>

#include "fleet/bounded_text.hpp"

namespace gd {
namespace {

using nlohmann::json;

constexpr std::size_t k_names_shown = 3;        // "a few node names" per row
constexpr std::size_t k_max_cause_width = 56;   // a longer rule id is cut in the table (never in JSON)
constexpr std::size_t k_max_fix_chars = 120;    // the fix column, unless -v
constexpr std::size_t k_max_listed = 50;        // duplicates and unreadable inputs shown, unless -v
constexpr std::size_t k_outlier_names = 10;     // an odd value's nodes named, unless -v
constexpr std::size_t k_max_value_chars = 160;  // a fact's value (a list of wheels), unless -v

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string pad_left(std::string text, std::size_t width) {
  if (text.size() < width) text.insert(0, width - text.size(), ' ');
  return text;
}

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string names_cell(const std::vector<std::string>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && i < k_names_shown; ++i) {
    out += (i ? " " : "") + printable_cut(nodes[i], 64);
  }
  if (nodes.size() > k_names_shown) out += " +" + std::to_string(nodes.size() - k_names_shown) + " more";
  return out;
}

/// "gpu17, gpu18, gpu19" (at most `cap`, then "and N more"; every name when cap is 0).
std::string names_list(const std::vector<std::string>& nodes, std::size_t cap) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && (cap == 0 || i < cap); ++i) out += (i ? ", " : "") + printable_cut(nodes[i], 64);
  if (cap != 0 && nodes.size() > cap) out += " and " + std::to_string(nodes.size() - cap) + " more";
  return out;
}

/// "570.86.15 on 3 nodes: gpu17, gpu18, gpu19; 580.159.04 on 97 nodes"
std::string outlier_line(const FleetOutlier& o, bool verbose) {
  std::string out;
  for (const OutlierValue& v : o.values) {
    if (!out.empty()) out += "; ";
    out += verbose ? printable(v.value) : printable_cut(v.value, k_max_value_chars);
    if (v.expected && o.reference) out += " (the reference)";
    out += " on " + plural(v.count, "node", "nodes");
    if (!v.nodes.empty()) out += ": " + names_list(v.nodes, verbose ? 0 : k_outlier_names);
  }
  return out;
}

std::string outliers_heading(const FleetSummary& summary) {
  return plural(static_cast<std::int64_t>(summary.outliers.size()), "fact differs", "facts differ") +
         " between the nodes (" +
         (summary.has_reference ? "against the reference where it gives a value, else the majority"
                                : "the odd ones first, the majority's value last") +
         "):";
}

}  // namespace

std::string render_fleet_text(const FleetSummary& summary, const FleetTextOptions& options) {
  std::string out;
  std::int64_t problem_nodes = 0;
  std::int64_t causes = 0;
  for (const FleetGroup& g : summary.groups) {
    if (g.root_cause) {
      problem_nodes += static_cast<std::int64_t>(g.nodes.size());
      ++causes;
    }
  }
  out += plural(summary.nodes, "node", "nodes") + " (" + plural(summary.reports, "report", "reports") + "): " +
         std::to_string(summary.nodes - problem_nodes) + " healthy, " + std::to_string(problem_nodes) + " with " +
         plural(causes, "root cause", "root causes");
  if (summary.scope == CauseScope::node) out += " (the node's findings only: --scope node)";
  out += "\n";

  if (!summary.groups.empty()) {
    struct Row {
      std::string count, cause, severity, action, names, fix;
    };
    std::vector<Row> rows = {{"NODES", "ROOT CAUSE", "SEVERITY", "ACTION", "NODE NAMES", "FIRST FIX STEP"}};
    for (const FleetGroup& g : summary.groups) {
      std::string fix = g.first_fix.empty() ? "-" : options.verbose ? printable(g.first_fix)
                                                                   : printable_cut(g.first_fix, k_max_fix_chars);
      rows.push_back({std::to_string(g.nodes.size()),
                      g.root_cause ? printable_cut(*g.root_cause, k_max_cause_width) : "healthy",
                      printable_cut(g.severity, 16), printable_cut(g.action.empty() ? "-" : g.action, 24),
                      names_cell(g.nodes), fix});
    }
    std::size_t w_count = 0, w_cause = 0, w_severity = 0, w_action = 0, w_names = 0;
    for (const Row& r : rows) {
      w_count = std::max(w_count, r.count.size());
      w_cause = std::max(w_cause, r.cause.size());
      w_severity = std::max(w_severity, r.severity.size());
      w_action = std::max(w_action, r.action.size());
      w_names = std::max(w_names, r.names.size());
    }
    out += "\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out += pad_left(r.count, w_count) + "  " + pad(r.cause, w_cause) + "  " + pad(r.severity, w_severity) + "  " +
             pad(r.action, w_action) + "  " + pad(r.names, w_names) + "  " + r.fix;
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n";
      if (options.verbose && i > 0 && summary.groups[i - 1].nodes.size() > k_names_shown) {
        std::string all;
        for (const std::string& n : summary.groups[i - 1].nodes) all += (all.empty() ? "" : " ") + printable(n);
        out += pad("", w_count) + "  nodes: " + all + "\n";
      }
    }
  }

  if (!summary.outliers.empty()) {
    out += "\n" + outliers_heading(summary) + "\n";
    for (const FleetOutlier& o : summary.outliers) out += "  " + o.fact + ": " + outlier_line(o, options.verbose) + "\n";
  }

  if (!summary.duplicates.empty()) {
    out += "\n" + plural(static_cast<std::int64_t>(summary.duplicates.size()), "node", "nodes") +
           " reported more than once; the newer report counts:\n";
    std::size_t shown = 0;
    for (const FleetDuplicate& d : summary.duplicates) {
      if (!options.verbose && shown++ == k_max_listed) {
        out += "  ... and " + std::to_string(summary.duplicates.size() - k_max_listed) + " more (-v or --json lists all)\n";
        break;
      }
      std::string older;
      for (const std::string& s : d.ignored) older += (older.empty() ? "" : ", ") + printable(s);
      out += "  " + printable(d.node) + ": " + printable(d.counted) + " counts, not " + older + "\n";
    }
  }

  if (!summary.unreadable.empty()) {
    out += "\n" + plural(static_cast<std::int64_t>(summary.unreadable.size()), "input", "inputs") +
           " could not be read:\n";
    std::size_t shown = 0;
    for (const FleetUnreadable& u : summary.unreadable) {
      if (!options.verbose && shown++ == k_max_listed) {
        out += "  ... and " + std::to_string(summary.unreadable.size() - k_max_listed) + " more (-v or --json lists all)\n";
        break;
      }
      out += "  " + printable(u.path) + ": " + printable(u.reason) + "\n";
    }
  }
  return out;
}

nlohmann::json render_fleet_json(const FleetSummary& summary) {
  json groups = json::array();
  for (const FleetGroup& g : summary.groups) {
    groups.push_back({{"root_cause", g.root_cause ? json(*g.root_cause) : json(nullptr)},
                      {"severity", g.severity},
                      {"title", g.title},
                      {"action", g.action},
                      {"first_fix", g.first_fix},
                      {"count", g.nodes.size()},
                      {"nodes", g.nodes}});
  }
  json duplicates = json::array();
  for (const FleetDuplicate& d : summary.duplicates) {
    duplicates.push_back({{"node", d.node}, {"counted", d.counted}, {"ignored", d.ignored}});
  }
  json unreadable = json::array();
  for (const FleetUnreadable& u : summary.unreadable) unreadable.push_back({{"path", u.path}, {"reason", u.reason}});
  json outliers = json::array();
  for (const FleetOutlier& o : summary.outliers) {
    json values = json::array();
    for (const OutlierValue& v : o.values) {
      values.push_back({{"value", v.value}, {"count", v.count}, {"nodes", v.nodes}, {"expected", v.expected}});
    }
    outliers.push_back({{"fact", o.fact}, {"reference", o.reference ? json(*o.reference) : json(nullptr)}, {"values", values}});
  }
  return {{"fleet_schema_version", k_fleet_schema_version},
          {"gpudoctor_version", GD_VERSION},
          {"scope", summary.scope == CauseScope::node ? "node" : "all"},
          {"nodes", summary.nodes},
          {"reports", summary.reports},
          {"groups", groups},
          {"duplicates", duplicates},
          {"unreadable", unreadable},
          {"compared_with", summary.has_reference ? "reference" : "majority"},
          {"outliers", outliers}};
}

std::string render_fleet_markdown(const FleetSummary& summary) {
  // A table cell: printable, its pipes escaped, on one line.
  auto cell = [](std::string_view text, std::size_t limit) {
    std::string out;
    for (char c : printable_cut(text, limit)) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::int64_t problem_nodes = 0;
  for (const FleetGroup& g : summary.groups) {
    if (g.root_cause) problem_nodes += static_cast<std::int64_t>(g.nodes.size());
  }
  std::string out = "### gpudoctor fleet: " + plural(summary.nodes, "node", "nodes") + ", " +
                    std::to_string(summary.nodes - problem_nodes) + " healthy\n\n";
  if (!summary.groups.empty()) {
    out += "| nodes | root cause | severity | action | node names |\n|---:|---|---|---|---|\n";
    for (const FleetGroup& g : summary.groups) {
      out += "| " + std::to_string(g.nodes.size()) + " | " +
             (g.root_cause ? "`" + cell(*g.root_cause, k_max_cause_width) + "`" : std::string("healthy")) + " | " +
             cell(g.severity, 16) + " | " + cell(g.action, 24) + " | " + cell(names_cell(g.nodes), 400) + " |\n";
    }
  }
  if (!summary.outliers.empty()) {
    out += "\n" + outliers_heading(summary) + "\n\n";
    for (const FleetOutlier& o : summary.outliers) out += "- `" + o.fact + "`: " + cell(outlier_line(o, false), 4000) + "\n";
  }
  if (!summary.unreadable.empty()) {
    out += "\n" + plural(static_cast<std::int64_t>(summary.unreadable.size()), "input", "inputs") +
           " could not be read (`gpudoctor fleet` lists them).\n";
  }
  return out;
}

}  // namespace gd
