// Scope and action (issue 15): every rule has both, and a rule of the node's scope can decide
// with what `--scope node` collects, which leaves out the invoking user's Python environment and
// toolkit (their facts are unknown there).

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/fact_key.hpp"
#include "core/all_layers.hpp"
#include "core/fact_catalog.hpp"
#include "rules/defaults.hpp"
#include "rules/rule_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

gd::RuleLoadResult repository_rules() { return gd::load_rules_from_path(std::string(GD_SOURCE_DIR) + "/rules"); }

// The catalogue keys (patterns as written) of the facts --scope node does not collect.
std::set<std::string> environment_only_keys() {
  std::set<std::string> keys;
  for (auto section : {gd::catalog::python_facts, gd::catalog::toolkit_facts}) {
    for (const gd::FactSpec& spec : section()) keys.insert(std::string(spec.name));
  }
  return keys;
}

}  // namespace

TEST_CASE("no rule of the node's scope needs a fact --scope node leaves out", "[rules][scope]") {
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::set<std::string> left_out = environment_only_keys();
  REQUIRE(left_out.count("torch.version"_fact) == 1);
  int node_rules = 0;
  for (const gd::Rule& rule : loaded.rules) {
    if (rule.scope != gd::Scope::node) continue;
    ++node_rules;
    std::vector<std::string> tested = gd::condition_facts(rule.when);
    if (rule.confirmed_by) {
      for (const std::string& fact : gd::condition_facts(*rule.confirmed_by)) tested.push_back(fact);
    }
    for (const std::string& fact : tested) {
      auto spec = gd::find_fact_spec(fact);
      REQUIRE(spec);
      INFO(rule.id << " tests " << fact);
      CHECK(left_out.count(std::string(spec->name)) == 0);
    }
  }
  CHECK(node_rules > 50);
}

TEST_CASE("the user's environment rules are of the environment's scope", "[rules][scope]") {
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::set<std::string> environment;
  std::set<std::string> node;
  for (const gd::Rule& rule : loaded.rules) (rule.scope == gd::Scope::node ? node : environment).insert(rule.id);
  // A health check must never drain a node for these: each is the invoking user's variables,
  // Python environment, toolkit or container settings.
  for (const char* id : {"cuda.visible-devices-hides-gpus", "cuda.init-fails-only-in-user-env",
                         "libraries.ld-library-path-shadows-driver", "ml.torch-cpu-only", "toolkit.nvcc-missing",
                         "container.no-gpus", "nvml.compute-mode-exclusive-busy"}) {
    INFO(id);
    CHECK(environment.count(id) == 1);
  }
  for (const char* id : {"nvml.row-remap-failure", "xid.fallen-off-bus", "driver.userspace-version-mismatch",
                         "devices.uvm-missing", "hardware.no-nvidia-gpu-in-vm", "cuda.kernel-wrong-result"}) {
    INFO(id);
    CHECK(node.count(id) == 1);
  }
}

TEST_CASE("actions follow what fixes the problem", "[rules][scope]") {
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  auto action_of = [&](std::string_view id) {
    for (const gd::Rule& rule : loaded.rules) {
      if (rule.id == id) return std::string(gd::to_string(rule.action));
    }
    return std::string("no such rule");
  };
  CHECK(action_of("nvml.row-remap-pending") == "reset-gpu");
  CHECK(action_of("nvml.row-remap-failure") == "replace-hardware");
  CHECK(action_of("driver.reboot-pending") == "reboot");
  CHECK(action_of("services.fabricmanager-not-running") == "restart-service");
  CHECK(action_of("hardware.gpu-newer-than-driver") == "update-software");
  CHECK(action_of("ml.torch-cpu-only") == "fix-environment");
  CHECK(action_of("libraries.compat-libcuda-in-use") == "none");
  // Informational findings never ask for a reset, a reboot or a replacement.
  for (const gd::Rule& rule : loaded.rules) {
    if (rule.severity != gd::Severity::info) continue;
    INFO(rule.id);
    CHECK((rule.action == gd::Action::none || rule.action == gd::Action::fix_config ||
           rule.action == gd::Action::fix_environment));
  }
}

TEST_CASE("folder defaults", "[rules][scope]") {
  CHECK(gd::default_scope_action("ml.anything").scope == gd::Scope::environment);
  CHECK(gd::default_scope_action("toolkit.anything").scope == gd::Scope::environment);
  CHECK(gd::default_scope_action("container.anything").scope == gd::Scope::environment);
  CHECK(gd::default_scope_action("nvml.anything").action == gd::Action::reset_gpu);
  CHECK(gd::default_scope_action("xid").action == gd::Action::reset_gpu);  // an id without a dot
  CHECK(gd::default_scope_action("site.local-rule").scope == gd::Scope::node);
  CHECK(gd::default_scope_action("").action == gd::Action::fix_config);
}

}  // namespace GD_UNITY_ID
