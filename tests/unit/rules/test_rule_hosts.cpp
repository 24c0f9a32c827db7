// Every rule has whole-host cases under tests/rules/<rule-id>/hosts/: positive-*.host.json is a
// captured host on which the rule fires, negative-*.host.json one on which it decides "no". The
// ML-stack rules' cases written by tests/hosts/make_ml_scenarios.py are not stored: the ctest
// fixture test.inputs writes them into the build tree, GD_GENERATED_DIR/tests/rules/<rule-id>/hosts/.
// Each runs the whole pipeline (every probe on the replayed capture, then the repository's rules),
// so a case breaks when a probe, a fact or a rule changes what the user would see. Every rule must
// be a top-level finding (not only a consequence another finding explains) in at least one of its
// positive cases, and the probes must never produce facts that contradict each other.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/pipeline.hpp"
#include "sys/input_files.hpp"
#include "fact_consistency.hpp"
#include "rule_hosts.hpp"
#include "rules/rule_files.hpp"
#include "core/fact_key.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

namespace fs = std::filesystem;

const fs::path k_rules_tests = fs::path(GD_SOURCE_DIR) / "tests" / "rules";
const fs::path k_generated_rules_tests = fs::path(GD_GENERATED_DIR) / "tests" / "rules";

/// The rule's host cases whose name starts with `prefix`: the committed ones and the generated ones.
std::vector<fs::path> host_files(const std::string& rule_id, const std::string& prefix) {
  std::vector<fs::path> out;
  for (const fs::path& folder : {k_rules_tests / rule_id / "hosts", k_generated_rules_tests / rule_id / "hosts"}) {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
      std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && name.size() > 10 && name.ends_with(".host.json")) {
        out.push_back(entry.path());
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  return out;
}

/// The generated cases are there (the fixture ran): without them the ML rules would lack cases
/// and the message would point at the wrong cause.
void require_generated_cases() {
  INFO("no " << k_generated_rules_tests.string() << ": the ctest fixture test.inputs makes it (ctest -R test.inputs)");
  REQUIRE(fs::is_directory(k_generated_rules_tests));
}

struct Outcome {
  std::vector<std::string> fired;      ///< top-level findings and the consequences they explain
  std::vector<std::string> top_level;  ///< the findings themselves
  std::vector<std::string> contradictions;  ///< facts of the run that exclude each other
  std::vector<std::string> undecided;
  std::string summary;
};

Outcome run_host(const fs::path& file, const std::vector<gd::Rule>& rules) {
  auto text = gd::read_whole_input(file.string(), 16u << 20);
  if (!text) {
    throw std::runtime_error(file.string() + ": " + text.error());
  }
  nlohmann::json host = nlohmann::json::parse(*text);
  nlohmann::json composed = gd::test::compose_rule_host(host, file.string());
  // GD_RULE_HOST_DUMP=DIR keeps each composed capture, to replay by hand with `gpudoctor replay -v`.
  if (const char* dump = std::getenv("GD_RULE_HOST_DUMP")) {
    std::ofstream(fs::path(dump) / file.filename().replace_extension("").replace_extension(".capture.json"))
        << composed.dump(2) << "\n";
  }
  auto capture = gd::capture_from_json(composed, file.string());
  if (!capture) {
    throw std::runtime_error(capture.error().describe());
  }
  gd::ReplayHost replay(std::move(*capture));
  gd::Options options;
  options.root = replay.capture().root;
  options.probe.python_path = replay.capture().python_option;
  options.probe.extension_paths = replay.capture().extension_options;
  options.capture = false;
  gd::RunInfo run;
  run.mode = gd::RunMode::replay;
  run.source = file.string();
  gd::Report report = gd::run_pipeline(replay, options, rules, run);
  Outcome outcome;
  outcome.summary = "findings:";
  outcome.contradictions = gd::test::fact_contradictions(report.facts);
  for (const gd::Finding& finding : report.findings) {
    outcome.fired.push_back(finding.id);
    outcome.top_level.push_back(finding.id);
    outcome.summary += " " + finding.id;
    for (const std::string& consequence : finding.consequences) {
      outcome.fired.push_back(consequence);
      outcome.summary += " (explains " + consequence + ")";
    }
  }
  outcome.summary += "; undecided:";
  for (const gd::Inconclusive& result : report.inconclusive) {
    outcome.undecided.push_back(result.id);
    outcome.summary += " " + result.id;
    for (const gd::Evidence& evidence : result.unknown_facts) {
      outcome.summary += " [" + evidence.fact + " " + evidence.value + "]";
    }
  }
  return outcome;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

/// Rules whose positive host cases still show them only as another finding's consequence. The
/// list only shrinks: each entry is waiting for a host case where it is the cause.
const std::vector<std::string> k_not_yet_top_level = {};

gd::RuleLoadResult repository_rules() {
  return gd::load_rules_from_path((fs::path(GD_SOURCE_DIR) / "rules").string());
}

}  // namespace

TEST_CASE("the rule host composer edits a base capture as described", "[rules][hosts]") {
  nlohmann::json host = {
      {"about", "test"},
      {"base", "h200-live-580.159.04"},
      {"env", {{"CUDA_VISIBLE_DEVICES", "99"}}},
      {"paths", {{"/proc/driver/nvidia/version", nullptr}, {"/new", {{"read", {{"error", "EACCES"}}}}}}},
      {"helper_reply", {{"user-env", {{"cuda.init.result"_fact, "999"}, {"cuda.device_count"_fact, nullptr}, {"x.new", "1"}}}}}};
  nlohmann::json capture = gd::test::compose_rule_host(host, "inline");
  CHECK(capture["env"]["CUDA_VISIBLE_DEVICES"] == "99");
  CHECK(capture["env"].contains("LD_LIBRARY_PATH"));
  CHECK_FALSE(capture["paths"].contains("/proc/driver/nvidia/version"));
  CHECK(capture["paths"]["/new"]["read"]["error"] == "EACCES");
  const nlohmann::json& lines = capture["helper_runs"][0]["reply"]["lines"];
  auto has = [&](const std::string& line) { return std::find(lines.begin(), lines.end(), line) != lines.end(); };
  CHECK(has("cuda.init.result\t999"));
  CHECK_FALSE(has("cuda.init.result\t0"));
  CHECK_FALSE(has("cuda.device_count\t1"));
  CHECK(has("cuda.device_count.result\t0"));  // a key that merely starts the same stays
  // A new key goes before the closing "end" line.
  auto added = std::find(lines.begin(), lines.end(), "x.new\t1");
  REQUIRE(added != lines.end());
  CHECK((added + 1)->get<std::string>().rfind("end\t", 0) == 0);

  CHECK_THROWS_WITH(gd::test::compose_rule_host({{"about", "x"}}, "f.host.json"), Catch::Contains("f.host.json"));
  // Line edits: a replaced and an appended line; a line the base lacks is an error, not a no-op.
  nlohmann::json edited = gd::test::compose_rule_host(
      {{"about", "x"},
       {"base", "h200-live-full"},
       {"replace_lines", {{"/proc/devices", {{"238 nvidia-uvm", "509 nvidia-uvm"}}}}},
       {"append_lines", {{"/proc/modules", {"nouveau 1 - - Live 0x0"}}}}},
      "edit");
  const nlohmann::json& devices = edited["paths"]["/proc/devices"]["read"]["lines"];
  CHECK(std::find(devices.begin(), devices.end(), "509 nvidia-uvm") != devices.end());
  CHECK(std::find(devices.begin(), devices.end(), "238 nvidia-uvm") == devices.end());
  const nlohmann::json& modules = edited["paths"]["/proc/modules"]["read"]["lines"];
  CHECK(modules[modules.size() - 2] == "nouveau 1 - - Live 0x0");
  CHECK(modules.back() == "");
  CHECK_THROWS_WITH(gd::test::compose_rule_host({{"about", "x"},
                                                 {"base", "h200-live-full"},
                                                 {"replace_lines", {{"/proc/devices", {{"999 nothing", "1 x"}}}}}},
                                                "h.host.json"),
                    Catch::Contains("999 nothing"));
  CHECK_THROWS_WITH(gd::test::compose_rule_host({{"about", "x"}, {"base", "h200-live-580.159.04"},
                                                 {"helper_reply", {{"clean-env", {{"a", "b"}}}}}},
                                                "g.host.json"),
                    Catch::Contains("clean-env"));
}

TEST_CASE("every rule has a positive and a negative whole-host case", "[rules][hosts]") {
  require_generated_cases();
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::vector<std::string> lacking;
  for (const gd::Rule& rule : loaded.rules) {
    if (host_files(rule.id, "positive-").empty() || host_files(rule.id, "negative-").empty()) {
      lacking.push_back(rule.id);
    }
  }
  for (const std::string& id : lacking) {
    UNSCOPED_INFO("rule " << id << " needs tests/rules/" << id << "/hosts/positive-*.host.json and negative-*.host.json");
  }
  CHECK(lacking.empty());
}

TEST_CASE("rule hosts make their rule fire or decide no, as named", "[rules][hosts]") {
  require_generated_cases();
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::size_t checked = 0;
  // GD_RULE_HOST_FILTER=PREFIX runs only the rules whose id starts with it (while writing cases).
  const char* filter = std::getenv("GD_RULE_HOST_FILTER");
  // In CI the whole set must run: a filter left exported would pass on a subset.
  if (filter != nullptr && std::getenv("CI") != nullptr) {
    FAIL("GD_RULE_HOST_FILTER is set in CI (" << filter << "): every rule host must run");
  }
  std::vector<std::string> never_top_level;
  for (const gd::Rule& rule : loaded.rules) {
    if (filter != nullptr && rule.id.rfind(filter, 0) != 0) {
      continue;
    }
    bool shown_top_level = false;
    for (const char* kind : {"positive-", "negative-"}) {
      for (const fs::path& file : host_files(rule.id, kind)) {
        INFO(file.string());
        Outcome outcome;
        try {
          outcome = run_host(file, loaded.rules);
        } catch (const std::exception& error) {
          FAIL_CHECK(error.what());
          continue;
        }
        INFO(outcome.summary);
        for (const std::string& contradiction : outcome.contradictions) {
          FAIL_CHECK("the probes produced facts that cannot both hold: " << contradiction);
        }
        if (std::string(kind) == "positive-") {
          CHECK(contains(outcome.fired, rule.id));
          if (contains(outcome.top_level, rule.id)) shown_top_level = true;
        } else {
          CHECK_FALSE(contains(outcome.fired, rule.id));
          CHECK_FALSE(contains(outcome.undecided, rule.id));
        }
        ++checked;
      }
    }
    if (!shown_top_level && !contains(k_not_yet_top_level, rule.id)) never_top_level.push_back(rule.id);
  }
  for (const std::string& id : never_top_level) {
    UNSCOPED_INFO("rule " << id << " is never a top-level finding in its positive host cases (only explained by "
                  "another finding): add a positive host case where it is the cause");
  }
  CHECK(never_top_level.empty());
  CHECK(checked > 0);
}

}  // namespace GD_UNITY_ID
