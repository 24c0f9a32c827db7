// `gpudoctor fleet PATH...`: the reports of many nodes grouped by root cause. Each input (a
// file, the *.json and *.jsonl files under a folder, or `-` for standard input) is read in
// chunks through sys/input_files, cut into reports (fleet/report_splitter), each report reduced
// to its digest (fleet/report_digest) and dropped; only the tally (fleet/fleet_tally) grows, by
// one small entry per node. Nothing an input holds stops the run: it is listed as unreadable,
// by its path, line and reason, never by its bytes (it may be any file). Each digest also carries
// the node's configuration facts (fleet/fleet_facts), compared across the nodes for the odd one
// out (fleet/fleet_outliers), or with --reference FILE (fleet/fleet_reference).
#include <chrono>
#include <vector>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/stdout_sink.hpp"
#include "core/exit_code.hpp"
#include "fleet/bounded_text.hpp"
#include "fleet/fleet_facts.hpp"
#include "fleet/fleet_prometheus.hpp"
#include "fleet/fleet_reference.hpp"
#include "fleet/fleet_render.hpp"
#include "fleet/fleet_tally.hpp"
#include "fleet/report_digest.hpp"
#include "fleet/report_splitter.hpp"
#include "sys/input_files.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_report_bytes = 64u << 20;  // one report (with its capture) at most
constexpr std::size_t k_chunk_bytes = 256u << 10;      // read size: the only other buffer
constexpr int k_max_problems_per_input = 20;           // then one line says how many more
constexpr std::string_view k_report_suffixes[] = {".json", ".jsonl"};

class FleetReader {
 public:
  FleetReader(FleetTally& tally, const FleetFactSelection& selection)
      : m_tally(tally), m_selection(selection), m_buffer(k_chunk_bytes) {}

  void read_path(const std::string& path) {
    if (path == "-") {
      InputStream in = InputStream::standard_input();
      read_stream(in, "-", /*always_line=*/true);
      return;
    }
    InputClass kind = classify_input(path);
    if (kind.kind == InputKind::unusable) {
      m_tally.add_unreadable(path, kind.reason);
    } else if (kind.kind == InputKind::file) {
      read_file(path);
    } else {
      std::size_t before = m_files;
      walk_input_folder(
          path, k_report_suffixes,
          [&](const std::string& file, std::expected<InputStream, std::string> in) { read_opened(file, std::move(in)); },
          [&](const std::string& where, const std::string& reason) { m_tally.add_unreadable(where, reason); });
      if (m_files == before) m_tally.add_unreadable(path, "no *.json or *.jsonl file in this folder");
    }
  }

 private:
  FleetTally& m_tally;
  const FleetFactSelection& m_selection;
  std::vector<char> m_buffer;
  std::size_t m_files = 0;

  void read_file(const std::string& path) { read_opened(path, InputStream::open_file(path)); }

  void read_opened(const std::string& path, std::expected<InputStream, std::string> in) {
    ++m_files;
    if (!in) {
      m_tally.add_unreadable(path, in.error());
      return;
    }
    read_stream(*in, path, /*always_line=*/false);
  }

  // A report is named by its input, with the line it begins on unless that is the first
  // (standard input always has the line: "-:1").
  void read_stream(InputStream& in, const std::string& name, bool always_line) {
    ReportSplitter splitter(k_max_report_bytes);
    int problems = 0;
    int documents = 0;
    auto where = [&](std::int64_t line) {
      return always_line || line != 1 ? name + ":" + std::to_string(line) : name;
    };
    auto problem = [&](std::string at, std::string reason) {
      if (++problems <= k_max_problems_per_input) m_tally.add_unreadable(std::move(at), std::move(reason));
    };
    auto sink = [&](const StreamPiece& piece) {
      if (piece.kind == StreamPiece::Kind::problem) {
        problem(where(piece.line), piece.reason);
        return;
      }
      ++documents;
      auto digest = digest_report(piece.text, &m_selection);
      if (digest) {
        m_tally.add_report(where(piece.line), *digest, m_selection.node_values(digest->facts));
      } else {
        problem(where(piece.line), digest.error());
      }
    };
    while (true) {
      auto n = in.read(m_buffer);
      if (!n) {
        problem(name, "read failed: " + n.error());
        break;
      }
      if (*n == 0) break;
      splitter.feed(std::string_view(m_buffer.data(), *n), sink);
    }
    splitter.finish(sink);
    if (documents == 0 && problems == 0) m_tally.add_unreadable(name, "empty: no report in it");
    if (problems > k_max_problems_per_input) {
      m_tally.add_unreadable(name, std::to_string(problems - k_max_problems_per_input) +
                                       " more parts of this input could not be read");
    }
  }
};

}  // namespace

CLI::App* add_fleet_command(CLI::App& app, FleetOptions& options) {
  CLI::App* fleet = app.add_subcommand("fleet", "group many nodes' --json reports by root cause (files, folders, - for stdin)");
  fleet->add_option("PATH", options.paths, "report file (one report or several, JSON Lines too), folder of *.json, or -")
      ->required();
  fleet->add_option("--reference", options.reference,
                    "compare each node's configuration with this known-good report, or JSON object of fact values "
                    "({\"kmod.nvidia.version\": \"580.95.05\"}), instead of with the majority");
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
    auto text = read_whole_input(options.reference, k_max_report_bytes);
    if (!text) return usage_error("--reference " + printable(options.reference) + ": " + text.error());
    auto reference = read_fleet_reference(*text, selection);
    if (!reference) return usage_error("--reference " + printable(options.reference) + ": " + reference.error());
    comparison.reference = std::move(*reference);
  }
  for (const FleetFactKey& key : selection.keys()) comparison.facts.push_back(key.key);
  FleetTally tally(options.scope == RunScope::node ? CauseScope::node : CauseScope::all, std::move(comparison));
  FleetReader reader(tally, selection);
  for (const std::string& path : options.paths) reader.read_path(path);

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
