#include "cli/pipeline.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/exit_code.hpp"
#include "report/render_json.hpp"
#include "report/render_text.hpp"
#include "rules/evaluator.hpp"
#include "report/redact.hpp"
#include "sys/capture.hpp"
#include "sys/recording_host.hpp"

namespace gd {

Report run_pipeline(Host& host, const Options& options, std::span<const Rule> rules, RunInfo run) {
  auto started = std::chrono::steady_clock::now();
  Capture capture;
  capture.created_by = "gpudoctor " GD_VERSION;
  capture.root = options.root;
  capture.python_option = options.probe.python_path;
  capture.extension_options = options.probe.extension_paths;
  RecordingHost recorder(host, capture);
  // Only the JSON report carries the capture: for text, the host is read without keeping a copy.
  const bool keep_capture = options.capture && options.json;

  Report report;
  // Collect: the only step that touches the host.
  report.facts = collect_facts(keep_capture ? static_cast<Host&>(recorder) : host, options.probe);
  // Evaluate: pure, offline-capable.
  Evaluation evaluation = evaluate(rules, report.facts);
  report.findings = std::move(evaluation.findings);
  report.inconclusive = std::move(evaluation.inconclusive);
  // Summarise each layer for the overview.
  report.areas = build_area_lines(report.facts, report.findings);
  if (keep_capture) {
    report.capture = capture_to_json(capture);
  }
  run.uid = report.facts.get_int("host.uid").value_or(-1);
  run.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  report.run = std::move(run);
  return report;
}

int exit_code_for(const Report& report, Severity fail_on) {
  for (const auto& finding : report.findings) {
    if (static_cast<int>(finding.severity) >= static_cast<int>(fail_on) && finding.severity != Severity::info) {
      return static_cast<int>(ExitCode::problems_found);
    }
  }
  return static_cast<int>(ExitCode::healthy);
}

void print_report(const Report& report, const Options& options) {
  std::string text;
  Redactor redactor = Redactor::for_facts(report.facts);
  if (options.json) {
    nlohmann::json json = render_json(report);
    if (options.redact) {
      redactor.json(json);
    }
    // Invalid UTF-8 from the host (a garbage file, libcuda's output) is replaced, never fatal.
    text = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    bool tty = ::isatty(STDOUT_FILENO) == 1;
    bool no_color = std::getenv("NO_COLOR") != nullptr;  // https://no-color.org: any value disables
    TextStyle style;
    // Colour only on a terminal (or when asked), and never with NO_COLOR.
    style.color = !no_color && (options.color == ColorMode::always || (options.color == ColorMode::automatic && tty));
    style.unicode = tty;
    style.verbose = options.verbose;
    text = render_text(report, style);
    if (options.redact) {
      text = redactor.text(text);
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

}  // namespace gd
