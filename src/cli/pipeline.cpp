#include "cli/pipeline.hpp"
#include "cli/stdout_sink.hpp"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/fact_key.hpp"
#include "core/exit_code.hpp"
#include "report/redact_report.hpp"
#include "report/report_scrub.hpp"
#include "report/render_json.hpp"
#include "report/render_markdown.hpp"
#include "report/render_npd.hpp"
#include "report/render_prometheus.hpp"
#include "report/render_text.hpp"
#include "rules/evaluator.hpp"
#include "report/redact.hpp"
#include "sys/capture.hpp"
#include "sys/output_file.hpp"
#include "sys/recording_host.hpp"

namespace gd {

namespace {

// The facts of the first helper run's outcome: a rule that tests one of them speaks about how
// CUDA failed with the caller's variables.
constexpr std::string_view k_first_run_outcome[] = {"cuda.init.result"_fact, "cuda.driver_version.result"_fact,
                                                    "cuda.libcuda.loaded"_fact, "cuda.libcuda.is_stub"_fact,
                                                    "cuda.helper.status"_fact};

bool rests_on_first_run(const Rule& rule) {
  std::vector<std::string> tested = condition_facts(rule.when);
  if (rule.confirmed_by) {
    std::vector<std::string> more = condition_facts(*rule.confirmed_by);
    tested.insert(tested.end(), more.begin(), more.end());
  }
  for (const std::string& fact : tested) {
    for (std::string_view name : k_first_run_outcome) {
      if (fact == name) return true;
    }
  }
  return false;
}

// --scope node reports only the node's problems: a health check must never drain a node for who
// ran it. Every rule was evaluated, so a node rule that an environment finding explains was
// already folded into it and leaves with it. And when the helper's second run, without the
// caller's LD_LIBRARY_PATH, LD_PRELOAD and CUDA_VISIBLE_DEVICES, made CUDA work, a finding about
// how the first run failed (a stub libcuda that LD_LIBRARY_PATH put first) is the environment's
// too, whatever its rule's scope.
std::vector<std::string> keep_node_scope(Evaluation& evaluation, std::span<const Rule> rules, const FactSet& facts) {
  auto rule_of = [&](const std::string& id) -> const Rule* {
    for (const Rule& rule : rules) {
      if (rule.id == id) return &rule;
    }
    return nullptr;
  };
  bool works_without_variables =
      facts.get_string("cuda.clean_env.status"_fact) == "ok" && facts.get_int("cuda.clean_env.init.result"_fact) == 0;
  for (Finding& f : evaluation.findings) {
    const Rule* rule = rule_of(f.id);
    if (works_without_variables && rule && rests_on_first_run(*rule)) f.scope = Scope::environment;
  }
  auto is_node = [&](const std::string& id) {
    const Rule* rule = rule_of(id);
    return !rule || rule->scope == Scope::node;
  };
  std::vector<std::string> left_out;
  for (const Finding& f : evaluation.findings) {
    if (f.scope != Scope::node) left_out.push_back(f.id);
  }
  std::erase_if(evaluation.findings, [](const Finding& f) { return f.scope != Scope::node; });
  std::erase_if(evaluation.inconclusive, [&](const Inconclusive& item) { return !is_node(item.id); });
  return left_out;
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
  const bool keep_capture = options.capture && options.format == OutputFormat::json;

  Report report;
  // Collect: the only step that touches the host.
  report.facts = collect_facts(keep_capture ? static_cast<Host&>(recorder) : host, options.probe);
  // Evaluate: pure, offline-capable.
  Evaluation evaluation = evaluate(rules, report.facts);
  if (options.probe.node_scope) report.left_out = keep_node_scope(evaluation, rules, report.facts);
  report.findings = std::move(evaluation.findings);
  report.inconclusive = std::move(evaluation.inconclusive);
  // Summarise each layer for the overview.
  report.areas = build_area_lines(report.facts, report.findings);
  if (keep_capture) {
    report.capture = capture_to_json(capture);
  }
  run.uid = report.facts.get_int("host.uid"_fact).value_or(-1);
  run.host = report.facts.get_string("host.name"_fact).value_or("");
  run.scope = options.probe.node_scope ? "node" : "all";
  run.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  report.run = std::move(run);
  return report;
}

int exit_code_for(const Report& report, Severity fail_on) {
  // A health check (--scope node) fails a node only on what CUDA confirmed or the files prove.
  const bool node = report.run.scope == "node";
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
  std::string text;
  Redactor redactor = Redactor::for_facts(report.facts);
  if (report.capture) redactor.add_accounts(*report.capture);  // people's names in /etc/passwd and group
  const double finished = unix_now();
  if (!options.textfile.empty()) {
    std::string metrics = render_prometheus(report, finished);
    if (options.redact) metrics = redactor.text(metrics);
    if (auto written = write_file_atomically(options.textfile, metrics, 0644); !written) {
      std::fprintf(stderr, "gpudoctor: error: --textfile %s\n", written.error().c_str());
      return false;
    }
  }
  if (!options.print_stdout) return true;
  if (options.format == OutputFormat::prometheus) {
    text = render_prometheus(report, finished);
    if (options.redact) text = redactor.text(text);
  } else if (options.format == OutputFormat::npd) {
    text = render_npd(report, options.fail_on);
    if (options.redact) text = redactor.text(text);
  } else if (options.format == OutputFormat::markdown) {
    // Redacted before rendering: the renderer escapes the placeholders and keeps the size limit.
    text = render_markdown(options.redact ? redact_report(report, redactor) : report);
  } else if (options.format == OutputFormat::json) {
    nlohmann::json json = render_json(report);
    if (options.redact) {
      redactor.json(json);
      // Also a name too short or too common to be replaced wherever it appears ("a", "localhost").
      if (!json["run"]["host"].get<std::string>().empty()) json["run"]["host"] = "<host>";
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
  write_stdout(text);
  return true;
}

}  // namespace gd
