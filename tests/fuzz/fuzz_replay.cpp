// Captures and --json reports given to `replay`: parsed within bounds, then every probe runs on the replayed
// host, every rule is evaluated and the overview built, as `gpudoctor replay FILE` does.
#include <nlohmann/json.hpp>

#include "fuzz_target.hpp"
#include "probes/probe.hpp"
#include "report/report.hpp"
#include "rules/embedded_rules.hpp"
#include "rules/evaluator.hpp"
#include "sys/capture.hpp"
#include "sys/replay_host.hpp"
#include "util/bounded_json.hpp"

GD_FUZZ_TEXT({
  // Through the bounded reader replay and diff use (sys/input_files: read_json_input), with
  // bounds small enough that the fuzzer reaches each of them.
  gd::JsonBounds bounds;
  bounds.max_depth = 16;
  bounds.max_items = 8000;      // the seeds: at most 1,284 values, 12 KB of strings, 7 levels
  bounds.max_string_bytes = 32u << 10;
  bounds.max_one_string = 16u << 10;
  bounds.max_one_literal = 64;
  auto parsed = gd::parse_bounded_json(text, bounds);
  if (!parsed) return 0;
  const nlohmann::json& json = *parsed;
  const nlohmann::json& capture_json = json.is_object() && json.contains("capture") ? json["capture"] : json;
  auto capture = gd::capture_from_json(capture_json, "fuzz.json");
  if (!capture) return 0;
  gd::ReplayHost host(std::move(*capture));
  gd::ProbeOptions options;
  options.python_path = host.capture().python_option;
  gd::FactSet facts = gd::collect_facts(host, options);
  static const std::vector<gd::Rule> rules = gd::load_embedded_rules().rules;
  gd::Evaluation evaluation = gd::evaluate(rules, facts);
  (void)gd::build_area_lines(facts, evaluation.findings);
})
