// `gpudoctor diff A B`: what differs between two nodes. A and B are --json reports (compared as
// they were made, with or without their capture) or captures (replayed first, with this
// gpudoctor's rules, through the replay pipeline). Read through sys/input_files (bounded
// JSON, regular files only); the comparison is fleet/report_diff.

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/stdout_sink.hpp"
#include "cli/replay.hpp"
#include "core/exit_code.hpp"
#include "fleet/diff_render.hpp"
#include "fleet/report_diff.hpp"
#include "report/render_json.hpp"
#include "sys/input_files.hpp"

namespace gd {
namespace {

Result<DiffSide> load_side(const std::string& path, const DiffOptions& options, const std::vector<Rule>& rules) {
  // Read in chunks within sys/input_files' JSON bounds, as replay reads a capture.
  auto parsed = read_json_input(path);
  if (!parsed) {
    std::string hint = parsed.error().starts_with("not valid JSON") ? "; a gpudoctor --json report or capture was expected" : "";
    return fail(parsed.error() + hint, path);
  }
  nlohmann::json json = std::move(*parsed);
  if (json.is_object() && json.value("format", "") == "gpudoctor-capture") {
    // Replayed as `gpudoctor replay` would with no options but --scope: what the capture holds.
    Options replay_options;
    replay_options.scope = options.scope;
    replay_options.capture = false;  // the diff needs the report, not a second copy of the capture
    auto report = replay_capture_json(json, path, replay_options, rules);
    if (!report) return std::unexpected(report.error());
    auto side = diff_side_from_report(render_json(*report), path, "capture");
    if (!side) return fail(side.error(), path);
    return std::move(*side);
  }
  auto side = diff_side_from_report(std::move(json), path, "report");
  if (!side) return fail(side.error(), path);
  return std::move(*side);
}

}  // namespace

CLI::App* add_diff_command(CLI::App& app, DiffOptions& options) {
  CLI::App* diff = app.add_subcommand("diff", "what differs between two nodes' reports or captures");
  diff->add_option("A", options.a, "report or capture")->required();
  diff->add_option("B", options.b, "report or capture")->required();
  return diff;
}

int run_diff(const DiffOptions& options, const std::vector<Rule>& rules) {
  if (options.format != "text" && options.format != "json") {
    return usage_error("diff prints text or --format json (see gpudoctor diff --help)");
  }
  if (!options.textfile.empty()) {  // a file of one node's metrics: writing none would go unnoticed
    return usage_error("--textfile writes a node's own metrics; diff prints on stdout only");
  }
  auto side_a = load_side(options.a, options, rules);
  if (!side_a) {
    return usage_error(side_a.error().describe());
  }
  auto side_b = load_side(options.b, options, rules);
  if (!side_b) {
    return usage_error(side_b.error().describe());
  }
  ReportDiff diff = diff_reports(*side_a, *side_b, options.verbose ? ShowVolatile::yes : ShowVolatile::no);
  std::string text = options.format == "json"
                         ? render_diff_json(*side_a, *side_b, diff).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                         : render_diff_text(*side_a, *side_b, diff, DiffTextOptions{options.verbose});
  write_stdout(text, "the diff");
  // As diff(1): 0 the same (volatile facts aside), 1 they differ, 2 an input could not be read.
  return diff.same() ? static_cast<int>(ExitCode::healthy) : static_cast<int>(ExitCode::problems_found);
}

}  // namespace gd
