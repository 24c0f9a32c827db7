#pragma once
// Real reports for the fleet tests: a captured host of tests/hosts/ replayed through the whole
// pipeline with the repository's rules and rendered as `--json --no-capture` renders it, with
// run.host set to the node name a test wants (a fleet's nodes differ by name, not by capture).

#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/pipeline.hpp"
#include "host_captures.hpp"
#include "report/render_json.hpp"
#include "rules/rule_files.hpp"
#include "sys/replay_host.hpp"

namespace gd::test {

inline const std::vector<Rule>& repository_rule_set() {
  static const std::vector<Rule> rules = [] {
    RuleLoadResult loaded = load_rules_from_path(std::string(GD_SOURCE_DIR) + "/rules");
    if (loaded.rules.empty()) throw std::runtime_error("no rules under " GD_SOURCE_DIR "/rules");
    return loaded.rules;
  }();
  return rules;
}

/// The report of tests/hosts/<capture>.capture.json; `scope_node` as --scope node made it.
inline Report replayed_report(const std::string& capture, bool scope_node = false) {
  ReplayHost replay(host_capture(capture));
  Options options;
  options.root = replay.capture().root;
  options.probe.python_path = replay.capture().python_option;
  options.probe.extension_paths = replay.capture().extension_options;
  options.scope = scope_node ? RunScope::node : RunScope::all;
  options.capture = false;
  RunInfo run;
  run.gpudoctor_version = GD_VERSION;
  run.mode = gd::RunMode::replay;
  run.source = capture;
  return run_pipeline(replay, options, repository_rule_set(), run);
}

/// Its --json text with run.host = `node` and run.started = `started`; replays are cached.
inline std::string replayed_report_json(const std::string& capture, const std::string& node,
                                        const std::string& started = "", bool scope_node = false) {
  static std::map<std::string, nlohmann::json> cache;
  std::string key = capture + (scope_node ? "#node" : "#all");
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, render_json(replayed_report(capture, scope_node))).first;
  nlohmann::json report = it->second;
  report["run"]["host"] = node;
  report["run"]["started"] = started;  // "" (unknown) unless given: the replay's own time is now
  return report.dump(2);
}

}  // namespace gd::test
