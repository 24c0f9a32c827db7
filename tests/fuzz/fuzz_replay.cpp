// Captures and --json reports given to `replay`: parsed, then every probe runs on the replayed
// host, every rule is evaluated and the overview built, as `gpudoctor replay FILE` does.
#include <nlohmann/json.hpp>

#include "fuzz_target.hpp"
#include "probes/probe.hpp"
#include "report/report.hpp"
#include "rules/embedded_rules.hpp"
#include "rules/evaluator.hpp"
#include "sys/capture.hpp"
#include "sys/replay_host.hpp"

GD_FUZZ_TEXT({
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
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
