// `gpudoctor fleet PATH...`: the reports of many nodes grouped by root cause. Each input (a
// file, the *.json and *.jsonl files under a folder, or `-` for standard input) is read through
// sys/input_files, cut into reports (fleet/report_splitter), each report reduced to its digest
// (fleet/report_digest) and dropped, on --jobs worker threads (cli/fleet_reader); only the tally
// (fleet/fleet_tally) grows, by one small entry per node. Nothing an input holds stops the run:
// it is listed as unreadable, by its path, line and reason, never by its bytes (it may be any
// file). Each digest also carries
// the node's configuration facts (fleet/fleet_facts), compared across the nodes for the odd one
// out (fleet/fleet_outliers), or with --reference FILE (fleet/fleet_reference).
#include <chrono>
#include <vector>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/fleet_reader.hpp"
#include "cli/fleet_work.hpp"
#include "cli/stdout_sink.hpp"
#include "core/exit_code.hpp"
#include "fleet/bounded_text.hpp"
#include "fleet/fleet_facts.hpp"
#include "fleet/fleet_prometheus.hpp"
#include "fleet/fleet_reference.hpp"
#include "fleet/fleet_render.hpp"
#include "fleet/fleet_tally.hpp"
#include "sys/input_files.hpp"

namespace gd {

CLI::App* add_fleet_command(CLI::App& app, FleetOptions& options) {
  CLI::App* fleet = app.add_subcommand("fleet", "group many nodes' --json reports by root cause (files, folders, - for stdin)");
  fleet->add_option("PATH", options.paths, "report file (one report or several, JSON Lines too), folder of *.json, or -")
      ->required();
  fleet->add_option("--reference", options.reference,
                    "compare each node's configuration with this known-good report, or JSON object of fact values "
                    "({\"kmod.nvidia.version\": \"580.95.05\"}), instead of with the majority");
  fleet->add_option("--jobs", options.jobs,
                    "threads that read and digest the reports (default: the cores it may use, at most 8); the "
                    "output is the same with any number")
      ->check(CLI::Range(1, 256));
  return fleet;
}

int run_fleet(const FleetOptions& options) {
  if (options.format != "text" && options.format != "json" && options.format != "markdown" &&
      options.format != "prometheus") {
    return usage_error(
        "fleet prints text, --format json, --format markdown or --format prometheus (see gpudoctor fleet --help)");
  }
  if (!options.textfile.empty()) {  // a file of one node's metrics: writing none would go unnoticed
    return usage_error("--textfile writes a node's own metrics; fleet prints on stdout only");
  }
  FleetFactSelection selection = FleetFactSelection::curated();
  FleetComparison comparison;
  if (!options.reference.empty()) {
    auto text = read_whole_input(options.reference, k_fleet_max_report_bytes);  // a report, with its capture
    if (!text) return usage_error("--reference " + printable(options.reference) + ": " + text.error());
    auto reference = read_fleet_reference(*text, selection);
    if (!reference) return usage_error("--reference " + printable(options.reference) + ": " + reference.error());
    comparison.reference = std::move(*reference);
  }
  for (const FleetFactKey& key : selection.keys()) comparison.facts.push_back(key.key);
  FleetTally tally(options.scope == RunScope::node ? CauseScope::node : CauseScope::all, std::move(comparison));
  read_fleet_inputs(options.paths, tally, selection, options.jobs == 0 ? default_fleet_jobs() : options.jobs);

  FleetSummary summary = tally.summary();
  std::string text;
  if (options.format == "json") {
    text = render_fleet_json(summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else if (options.format == "markdown") {
    text = render_fleet_markdown(summary);
  } else if (options.format == "prometheus") {
    // One sample per (fact, value) of each fact that differs, every value of it (the majority's,
    // or the reference's with its count, 0 when no node has it, too).
    std::vector<FleetOutlierSample> outliers;
    for (const FleetOutlier& o : summary.outliers) {
      for (const OutlierValue& v : o.values) outliers.push_back({o.fact, v.value, v.count});
    }
    double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    text = render_fleet_prometheus(summary, outliers, now);
  } else {
    text = render_fleet_text(summary, FleetTextOptions{options.verbose});
  }
  write_stdout(text, "the fleet summary");
  // Exit: 0 every input was read; 1 some could not be (the view is incomplete: they are listed);
  // 2 none could be. Whether nodes have problems is what the groups say, not the exit code.
  if (summary.reports == 0) {
    print_error("no report could be read from " + std::to_string(summary.unreadable.size()) +
                (summary.unreadable.size() == 1 ? " input" : " inputs") + " (listed above)");
    return static_cast<int>(ExitCode::usage_error);
  }
  return summary.unreadable.empty() ? static_cast<int>(ExitCode::healthy) : static_cast<int>(ExitCode::problems_found);
}

}  // namespace gd
