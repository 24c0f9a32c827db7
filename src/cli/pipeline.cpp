#include "cli/pipeline.hpp"
#include "cli/cli_error.hpp"
#include "cli/stdout_sink.hpp"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/fact_key.hpp"
#include "core/exit_code.hpp"
#include "report/render_formats.hpp"
#include "report/report_scrub.hpp"
#include "rules/evaluator.hpp"
#include "rules/node_scope.hpp"
#include "sys/capture.hpp"
#include "sys/output_file.hpp"
#include "sys/recording_host.hpp"

namespace gd {

namespace {

// --format's row; the command line lets only the rows' words through.
const RenderFormat& format_of(const Options& options) {
  const RenderFormat* format = find_render_format(options.format);
  return format ? *format : render_formats().front();
}

// "2026-12-01T10:22:33.123Z": fixed widths, so that timestamps compare as text.
std::string utc_timestamp(std::chrono::system_clock::time_point now) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  if (ms < 0 || ::gmtime_r(&seconds, &tm) == nullptr) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

}  // namespace

Report run_pipeline(Host& host, const Options& options, std::span<const Rule> rules, RunInfo run) {
  auto started = std::chrono::steady_clock::now();
  run.started = utc_timestamp(std::chrono::system_clock::now());
  Capture capture;
  capture.created_by = "gpudoctor " GD_VERSION;
  capture.root = options.root;
  capture.python_option = options.probe.python_path;
  capture.extension_options = options.probe.extension_paths;
  if (options.probe.target) {
    capture.target_gpu_option = options.probe.target->gpu.given;
    capture.target_driver_option = options.probe.target->driver;
    capture.target_image_config = options.probe.target->image_config;
  }
  RecordingHost recorder(host, capture);
  // Only the JSON report carries the capture: for text, the host is read without keeping a copy.
  const bool keep_capture = options.capture && format_of(options).needs_capture;

  ProbeOptions probe = options.probe;
  probe.node_scope = options.scope == RunScope::node;

  Report report;
  // Collect: the only step that touches the host.
  report.facts = collect_facts(keep_capture ? static_cast<Host&>(recorder) : host, probe);
  // Evaluate: pure, offline-capable.
  Evaluation evaluation = evaluate(rules, report.facts);
  // --scope node: the second pass keeps only the node's problems (rules/node_scope).
  if (options.scope == RunScope::node) report.left_out = keep_node_scope(evaluation, rules, report.facts);
  report.findings = std::move(evaluation.findings);
  report.inconclusive = std::move(evaluation.inconclusive);
  // Summarise each layer for the overview.
  report.areas = build_area_lines(report.facts, report.findings);
  if (keep_capture) {
    report.capture = capture_to_json(capture);
  }
  run.uid = report.facts.get_int("host.uid"_fact).value_or(-1);
  run.host = report.facts.get_string("host.name"_fact).value_or("");
  run.scope = options.scope;
  run.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  report.run = std::move(run);
  return report;
}

int exit_code_for(const Report& report, Severity fail_on) {
  // A health check (--scope node) fails a node only on what CUDA confirmed or the files prove.
  const bool node = report.run.scope == RunScope::node;
  for (const auto& finding : report.findings) {
    if (node && !finding.confirmed) continue;
    if (static_cast<int>(finding.severity) >= static_cast<int>(fail_on) && finding.severity != Severity::info) {
      return static_cast<int>(ExitCode::problems_found);
    }
  }
  return static_cast<int>(ExitCode::healthy);
}

namespace {

// Wall-clock seconds now, for gpudoctor_last_run_timestamp_seconds (the renderer stays pure).
double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool print_report(const Report& unscrubbed, const Options& options) {
  // Every format below prints this copy: no token a host file or a capture held leaves the process.
  std::optional<Report> scrubbed;
  if (report_holds_secrets(unscrubbed)) scrubbed = scrub_report_secrets(unscrubbed);
  const Report& report = scrubbed ? *scrubbed : unscrubbed;
  Redactor redaction = Redactor::for_facts(report.facts);
  if (report.capture) redaction.add_accounts(*report.capture);  // people's names in /etc/passwd and group
  const Redactor* redactor = options.redact ? &redaction : nullptr;
  RenderSettings settings;
  settings.fail_on = options.fail_on;
  settings.finished_unix_s = unix_now();
  if (!options.textfile.empty()) {
    std::string metrics = render_in_format(*find_render_format("prometheus"), report, settings, redactor);
    if (auto written = write_file_atomically(options.textfile, metrics, 0644); !written) {
      print_error("--textfile " + written.error());
      return false;
    }
  }
  if (!options.print_stdout) return true;
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  bool no_color = std::getenv("NO_COLOR") != nullptr;  // https://no-color.org: any value disables
  // Colour only on a terminal (or when asked), and never with NO_COLOR.
  settings.style.color = !no_color && (options.color == ColorMode::always || (options.color == ColorMode::automatic && tty));
  settings.style.unicode = tty;
  settings.style.verbose = options.verbose;
  std::string text = render_in_format(format_of(options), report, settings, redactor);
  write_stdout(text);
  return true;
}

}  // namespace gd
