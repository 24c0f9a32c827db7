// A rule's area names the overview line its findings mark: one no layer answers for
// (core/all_layers.hpp) is a load error at its line, and every built-in rule's folder has its
// layer's default scope and action.

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/fact_key.hpp"
#include "core/all_layers.hpp"
#include "rules/defaults.hpp"
#include "rules/embedded_rules.hpp"
#include "rules/rule_loader.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

std::string rule_with_area(std::string_view area) {
  return std::string(R"(spec = "gpudoctor-rule/1"
id = "cuda.example"
severity = "warning"
area = ")") + std::string(area) + R"("
title = "Example"
message = "cuInit returned {cuda.init.result}"
why = "Because."
fix = ["unset CUDA_VISIBLE_DEVICES"]
references = ["https://example.com/a"]
[when]
fact = "cuda.init.result"
not_equals = 0
)";
}

std::vector<gd::Error> area_load_errors(std::string_view area) {
  gd::RuleSource source{"site/cuda/example.toml", "cuda/example.toml", rule_with_area(area)};
  std::vector<gd::Error> errors;
  (void)gd::load_rule(source, errors);
  return errors;
}

}  // namespace

TEST_CASE("rule area: one no layer answers for fails to load, naming its file and line", "[rules][loader][layers]") {
  std::vector<gd::Error> errors = area_load_errors("kernel_log");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].file == "site/cuda/example.toml");
  CHECK(errors[0].line == 4);
  CHECK(errors[0].describe().starts_with("site/cuda/example.toml:4: area 'kernel_log' is no layer's (use one of pci, "));
  CHECK(errors[0].message.ends_with("(did you mean 'kernel-log'?)"));
  // The folder's spelling is no area either: the kernel log's area is kernel-log.
  CHECK(area_load_errors("klog").size() == 1);
  CHECK(area_load_errors("somewhere-else").size() == 1);
}

TEST_CASE("rule area: every layer's area loads", "[rules][loader][layers]") {
  for (std::string_view area : gd::layer_areas()) {
    INFO(area);
    CHECK(area_load_errors(area).empty());
  }
}

TEST_CASE("rule area: every built-in rule's folder is a layer's, with its defaults", "[rules][layers]") {
  std::set<std::string_view> folders;
  for (const gd::Layer& layer : gd::all_layers()) {
    for (const gd::RuleFolder& folder : layer.rule_folders) {
      folders.insert(folder.folder);
      gd::ScopeAction defaults = gd::default_scope_action(std::string(folder.folder) + ".anything");
      CHECK(defaults.scope == folder.scope);
      CHECK(defaults.action == folder.action);
    }
  }
  gd::RuleLoadResult loaded = gd::load_embedded_rules();
  REQUIRE(loaded.ok());
  REQUIRE_FALSE(loaded.rules.empty());
  for (const gd::Rule& rule : loaded.rules) {
    INFO(rule.id);
    CHECK(folders.count(std::string_view(rule.id).substr(0, rule.id.find('.'))) == 1);
    CHECK(gd::layer_of_area(rule.area) != nullptr);
  }
}

}  // namespace GD_UNITY_ID
