// Rule loading and validation: every diagnostic is asserted by message and line.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "rules/embedded_rules.hpp"
#include "rules/rule_files.hpp"
#include "rules/rule_loader.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

// A valid rule; tests derive broken ones by replacing one piece. Line numbers are fixed.
const std::string k_valid = R"(spec = "gpudoctor-rule/1"
id = "cuda.example"
severity = "warning"
area = "cuda"
title = "Example {cuda.init.result}"
message = """
cuInit returned {cuda.init.result}
with {cuda.init.name}."""
why = "Because."
fix = ["unset CUDA_VISIBLE_DEVICES", "awk '{print $1}' ${HOME}/x"]
references = ["https://example.com/a"]
tags = ["experimental"]
superseded_by = ["cuda.other"]
evidence = ["cuda.helper.stderr"]
[when]
all = [
  { fact = "cuda.init.result", in = [34, 100] },
  { not = { fact = "env.cuda_visible_devices", present = true } },
  { any = [ { fact = "nvml.driver_version", ge = "580.65.06" }, { fact = "cuda.context.failures", contains = "x" } ] },
]
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::size_t pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

gd::RuleLoadResult load(const std::string& text, const std::string& relative = "cuda/example.toml") {
  gd::RuleSource source{"rules/" + relative, relative, text};
  gd::RuleLoadResult result;
  if (auto rule = gd::load_rule(source, result.errors)) {
    result.rules.push_back(std::move(*rule));
  }
  return result;
}

// The one error a broken rule must give.
gd::Error single_error(const std::string& text, const std::string& relative = "cuda/example.toml") {
  gd::RuleLoadResult result = load(text, relative);
  INFO(text);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.rules.empty());
  CHECK(result.errors[0].file == "rules/" + relative);
  return result.errors[0];
}

}  // namespace

TEST_CASE("a valid rule loads with all its parts", "[rules][loader]") {
  gd::RuleLoadResult result = load(k_valid);
  REQUIRE(result.errors.empty());
  REQUIRE(result.rules.size() == 1);
  const gd::Rule& rule = result.rules[0];
  CHECK(rule.id == "cuda.example");
  CHECK(rule.severity == gd::Severity::warning);
  CHECK(rule.area == "cuda");
  CHECK(rule.title == "Example {cuda.init.result}");
  CHECK(rule.message == "cuInit returned {cuda.init.result}\nwith {cuda.init.name}.");
  CHECK(rule.fix.size() == 2);
  CHECK(rule.references == std::vector<std::string>{"https://example.com/a"});
  CHECK(rule.tags == std::vector<std::string>{"experimental"});
  REQUIRE(rule.superseded_by.size() == 1);
  CHECK(rule.superseded_by[0].id == "cuda.other");
  CHECK(rule.superseded_by[0].line == 13);
  CHECK(rule.evidence == std::vector<std::string>{"cuda.helper.stderr"_fact});
  CHECK(rule.file == "rules/cuda/example.toml");
  CHECK(rule.line == 2);

  REQUIRE(rule.when.kind == gd::Condition::Kind::all);
  REQUIRE(rule.when.children.size() == 3);
  const gd::Condition& in = rule.when.children[0];
  CHECK(in.kind == gd::Condition::Kind::leaf);
  CHECK(in.fact == "cuda.init.result");
  CHECK(in.op == gd::Op::in);
  CHECK(std::get<std::vector<std::int64_t>>(in.operand) == std::vector<std::int64_t>{34, 100});
  CHECK(in.line == 17);
  CHECK(rule.when.children[1].kind == gd::Condition::Kind::negation);
  CHECK(rule.when.children[1].children.at(0).op == gd::Op::present);
  CHECK(rule.when.children[2].kind == gd::Condition::Kind::any);
  CHECK(gd::condition_facts(rule.when) ==
        std::vector<std::string>{"cuda.init.result"_fact, "env.cuda_visible_devices"_fact, "nvml.driver_version"_fact,
                                 "cuda.context.failures"_fact});
}

TEST_CASE("a leaf directly under [when] and [[when.any]] tables are accepted", "[rules][loader]") {
  std::string leaf = replaced(k_valid, k_valid.substr(k_valid.find("all = [")), "fact = \"cuda.helper.status\"\nequals = \"ok\"\n");
  gd::RuleLoadResult result = load(leaf);
  REQUIRE(result.errors.empty());
  CHECK(result.rules.at(0).when.kind == gd::Condition::Kind::leaf);

  std::string tables = replaced(k_valid, k_valid.substr(k_valid.find("[when]")),
                                "[[when.any]]\nfact = \"cuda.init.result\"\nequals = 34\n"
                                "[[when.any]]\nfact = \"cuda.libcuda.is_stub\"\nequals = true\n");
  result = load(tables);
  REQUIRE(result.errors.empty());
  CHECK(result.rules.at(0).when.kind == gd::Condition::Kind::any);
  CHECK(result.rules.at(0).when.children.size() == 2);
}

TEST_CASE("an unknown fact is reported with a suggestion and its line", "[rules][loader]") {
  gd::Error error = single_error(replaced(k_valid, "fact = \"cuda.init.result\", in", "fact = \"cuda.init.reslt\", in"));
  CHECK(error.message == "unknown fact 'cuda.init.reslt' (did you mean 'cuda.init.result'?)");
  CHECK(error.line == 17);
  CHECK(error.describe() == "rules/cuda/example.toml:17: unknown fact 'cuda.init.reslt' (did you mean 'cuda.init.result'?)");
}

TEST_CASE("a device pattern cannot be tested directly", "[rules][loader]") {
  gd::Error error = single_error(replaced(k_valid, "\"cuda.context.failures\", contains", "\"cuda.device.*.name\", contains"));
  CHECK(error.message.starts_with("unknown fact 'cuda.device.*.name'; '*' patterns cannot be tested"));
  CHECK(error.line == 19);
  CHECK(load(replaced(k_valid, "\"cuda.context.failures\", contains", "\"cuda.device.0.name\", contains")).errors.empty());
}

TEST_CASE("an operand of the wrong type is reported", "[rules][loader]") {
  SECTION("string for an int fact") {
    gd::Error error = single_error(replaced(k_valid, "in = [34, 100]", "equals = \"34\""));
    CHECK(error.message == "fact 'cuda.init.result': operator 'equals' on int fact needs an integer operand, got \"34\"");
    CHECK(error.line == 17);
  }
  SECTION("array of strings for an int fact") {
    gd::Error error = single_error(replaced(k_valid, "in = [34, 100]", "in = [\"a\"]"));
    CHECK(error.message == "fact 'cuda.init.result': operator 'in' on int fact needs an array of integers, got [\"a\"]");
  }
  SECTION("not a version") {
    gd::Error error = single_error(replaced(k_valid, "ge = \"580.65.06\"", "ge = \"r580\""));
    CHECK(error.message ==
          "fact 'nvml.driver_version': operator 'ge' on version fact needs versions of digits and dots like "
          "\"580.65.06\", got \"r580\"");
    CHECK(error.line == 19);
  }
  SECTION("ordering on a string fact") {
    gd::Error error = single_error(replaced(k_valid, "\"nvml.driver_version\", ge", "\"cuda.init.name\", ge"));
    CHECK(error.message == "fact 'cuda.init.name': operator 'ge' needs an int or version fact, not string, got \"580.65.06\"");
  }
  SECTION("mixed array") {
    gd::Error error = single_error(replaced(k_valid, "in = [34, 100]", "in = [34, \"x\"]"));
    CHECK(error.message == "an array operand must hold only integers or only strings");
    CHECK(error.line == 17);
  }
  SECTION("present needs a boolean") {
    gd::Error error = single_error(replaced(k_valid, "present = true", "present = 1"));
    CHECK(error.message == "fact 'env.cuda_visible_devices': operator 'present' on string fact needs true or false, got 1");
    CHECK(error.line == 18);
  }
}

TEST_CASE("unknown keys are reported where they are", "[rules][loader]") {
  SECTION("top level, with a suggestion") {
    gd::Error error = single_error(replaced(k_valid, "area = \"cuda\"", "area = \"cuda\"\nreferenecs = []"));
    CHECK(error.message == "unknown key 'referenecs' (did you mean 'references'?)");
    CHECK(error.line == 5);
  }
  SECTION("an operator spelled as in other languages") {
    gd::Error error = single_error(replaced(k_valid, "in = [34, 100]", "eq = 34"));
    CHECK(error.message.starts_with("unknown key 'eq' in a condition (did you mean 'equals'?); operators are equals,"));
    CHECK(error.line == 17);
  }
  SECTION("two operators in one leaf") {
    gd::Error error = single_error(replaced(k_valid, "in = [34, 100]", "in = [34], equals = 34"));
    CHECK(error.message == "a condition has one operator; this one has 'equals' and 'in' (combine tests with all = [...])");
  }
  SECTION("a branch mixed with a fact test") {
    gd::Error error = single_error(replaced(k_valid, "{ not = {", "{ fact = \"cuda.init.result\", not = {"));
    CHECK(error.message ==
          "a condition holds exactly one of 'all', 'any', 'not' or a fact test; this one has 'fact', 'not' "
          "(nest them inside all = [...])");
    CHECK(error.line == 18);
  }
  SECTION("a leaf without an operator") {
    gd::Error error = single_error(replaced(k_valid, ", in = [34, 100]", ""));
    CHECK(error.message.starts_with("the condition on 'cuda.init.result' needs an operator: one of equals, not_equals,"));
  }
  SECTION("an empty any") {
    gd::Error error = single_error(replaced(k_valid,
                                            R"({ any = [ { fact = "nvml.driver_version", ge = "580.65.06" }, { fact = "cuda.context.failures", contains = "x" } ] })",
                                            "{ any = [] }"));
    CHECK(error.message == "'any' needs at least one condition");
    CHECK(error.line == 19);
  }
}

TEST_CASE("a bad severity is reported", "[rules][loader]") {
  gd::Error error = single_error(replaced(k_valid, "severity = \"warning\"", "severity = \"fatal\""));
  CHECK(error.message == "bad severity 'fatal' (use error, warning or info)");
  CHECK(error.line == 3);
  CHECK(single_error(replaced(k_valid, "severity = \"warning\"", "severity = \"eror\"")).message ==
        "bad severity 'eror' (use error, warning or info) (did you mean 'error'?)");
}

TEST_CASE("the id must match the file path", "[rules][loader]") {
  SECTION("in a rules folder") {
    gd::Error error = single_error(k_valid, "cuda/other-name.toml");
    CHECK(error.message ==
          "id 'cuda.example' does not match the file path 'cuda/other-name.toml' (expected id 'cuda.other-name', or "
          "move the file to 'cuda/example.toml')");
    CHECK(error.line == 2);
  }
  SECTION("a lone file must end with the id's path") {
    std::vector<gd::Error> errors;
    CHECK(gd::load_rule(gd::RuleSource{"/tmp/x/cuda/example.toml", "", k_valid}, errors));
    CHECK(errors.empty());
    CHECK_FALSE(gd::load_rule(gd::RuleSource{"/tmp/x/mycuda/example.toml", "", k_valid}, errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].message ==
          "id 'cuda.example' does not match the file path '/tmp/x/mycuda/example.toml' (a rule with this id lives at "
          "'cuda/example.toml')");
  }
  SECTION("ids are dotted lower-case") {
    gd::Error error = single_error(replaced(k_valid, "id = \"cuda.example\"", "id = \"Example\""));
    CHECK(error.message == "id 'Example' must be dotted lower-case segments like 'cuda.stub-libcuda'");
  }
  CHECK(gd::rule_id_for_path("cuda/stub-libcuda.toml") == "cuda.stub-libcuda");
  CHECK(gd::rule_id_for_path("./nvml/driver-library-mismatch.toml") == "nvml.driver-library-mismatch");
}

TEST_CASE("required keys and texts are checked", "[rules][loader]") {
  SECTION("missing references") {
    gd::Error error = single_error(replaced(k_valid, "references = [\"https://example.com/a\"]\n", ""));
    CHECK(error.message == "missing required key 'references'");
    CHECK(error.line == 1);
  }
  SECTION("empty references") {
    gd::Error error = single_error(replaced(k_valid, "[\"https://example.com/a\"]", "[]"));
    CHECK(error.message == "'references' needs at least one entry");
    CHECK(error.line == 11);
  }
  SECTION("wrong spec") {
    gd::Error error = single_error(replaced(k_valid, "gpudoctor-rule/1", "gpudoctor-rule/2"));
    CHECK(error.message == "unsupported spec 'gpudoctor-rule/2' (this gpudoctor reads 'gpudoctor-rule/1')");
  }
  SECTION("fix must be an array") {
    gd::Error error = single_error(replaced(k_valid, R"(fix = ["unset CUDA_VISIBLE_DEVICES", "awk '{print $1}' ${HOME}/x"])", "fix = \"x\""));
    CHECK(error.message == "'fix' must be an array of strings, not a string");
    CHECK(error.line == 10);
  }
  SECTION("an unknown fact in a placeholder of a multi-line string, on its own line") {
    gd::Error error = single_error(replaced(k_valid, "with {cuda.init.name}", "with {cuda.init.nam}"));
    CHECK(error.message == "placeholder '{cuda.init.nam}' in message names an unknown fact (did you mean 'cuda.init.name'?)");
    CHECK(error.line == 8);
  }
  SECTION("an unknown evidence fact") {
    gd::Error error = single_error(replaced(k_valid, "\"cuda.helper.stderr\"", "\"cuda.helper.stder\""));
    CHECK(error.message == "evidence names unknown fact 'cuda.helper.stder' (did you mean 'cuda.helper.stderr'?)");
    CHECK(error.line == 14);
  }
}

TEST_CASE("a TOML syntax error gives its line and never throws", "[rules][loader]") {
  gd::Error error = single_error(replaced(k_valid, "area = \"cuda\"", "area = \"cuda"));
  CHECK(error.line == 4);
  CHECK(error.message.starts_with("TOML syntax error: "));

  gd::Error garbage = single_error(std::string("\x01\x02\xff[[[", 6));
  CHECK(garbage.line >= 1);
}

TEST_CASE("the rule set is checked as a whole", "[rules][loader]") {
  std::string other = replaced(replaced(k_valid, "id = \"cuda.example\"", "id = \"cuda.other\""), "superseded_by = [\"cuda.other\"]",
                               "superseded_by = []");
  SECTION("valid references") {
    std::vector<gd::RuleSource> sources = {{"rules/cuda/example.toml", "cuda/example.toml", k_valid},
                                           {"rules/cuda/other.toml", "cuda/other.toml", other}};
    gd::RuleLoadResult result = gd::load_rules(sources);
    CHECK(result.ok());
    CHECK(result.rules.size() == 2);
  }
  SECTION("unknown superseding rule") {
    std::vector<gd::RuleSource> sources = {{"rules/cuda/example.toml", "cuda/example.toml", k_valid}};
    gd::RuleLoadResult result = gd::load_rules(sources);
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].message == "superseded_by names unknown rule 'cuda.other'");
    CHECK(result.errors[0].line == 13);
  }
  SECTION("a cycle") {
    std::string cyclic = replaced(other, "superseded_by = []", "superseded_by = [\"cuda.example\"]");
    std::vector<gd::RuleSource> sources = {{"rules/cuda/example.toml", "cuda/example.toml", k_valid},
                                           {"rules/cuda/other.toml", "cuda/other.toml", cyclic}};
    gd::RuleLoadResult result = gd::load_rules(sources);
    REQUIRE(result.errors.size() == 2);
    CHECK(result.errors[0].message == "superseded_by forms a cycle: cuda.example -> cuda.other -> cuda.example");
  }
  SECTION("a duplicate id") {
    std::vector<gd::RuleSource> sources = {{"a/cuda/other.toml", "", other}, {"b/cuda/other.toml", "", other}};
    gd::RuleLoadResult result = gd::load_rules(sources);
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].message == "duplicate rule id 'cuda.other' (first defined in a/cuda/other.toml)");
    CHECK(result.errors[0].file == "b/cuda/other.toml");
  }
}

TEST_CASE("rule files are read from a folder, bounded", "[rules][loader]") {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("gd-rules-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "cuda");
  auto write = [](const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  write(root / "cuda" / "example.toml", replaced(k_valid, "superseded_by = [\"cuda.other\"]", "superseded_by = []"));
  write(root / "README.md", "not a rule");

  gd::RuleLoadResult result = gd::load_rules_from_path(root.string() + "/");
  CHECK(result.ok());
  REQUIRE(result.rules.size() == 1);
  CHECK(result.rules[0].file == (root / "cuda" / "example.toml").string());

  write(root / "cuda" / "big.toml", std::string(gd::k_max_rule_file_size + 1, '#'));
  result = gd::load_rules_from_path(root.string());
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].message == "rule file is larger than 1048576 bytes");
  CHECK(result.errors[0].file == (root / "cuda" / "big.toml").string());

  result = gd::load_rules_from_path((root / "missing").string());
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].message.starts_with("cannot read rules: "));

  fs::remove_all(root / "cuda");
  result = gd::load_rules_from_path(root.string());
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].message == "no *.toml rule files in this folder");
  fs::remove_all(root);
}

TEST_CASE("embedded rule files become sources named under rules/", "[rules][loader]") {
  static const unsigned char data[] = {'a', 'b'};
  gd::EmbeddedRuleFile files[] = {{"cuda/x.toml", data, sizeof data}};
  std::vector<gd::RuleSource> sources = gd::to_rule_sources(files);
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].path == "rules/cuda/x.toml");
  CHECK(sources[0].relative_path == "cuda/x.toml");
  CHECK(sources[0].text == "ab");
}

TEST_CASE("rank is an optional integer from 1 to 100", "[rules][loader]") {
  gd::RuleLoadResult plain = load(k_valid);
  REQUIRE(plain.rules.size() == 1);
  CHECK(plain.rules[0].rank == 50);
  gd::RuleLoadResult ranked = load(replaced(k_valid, "tags = [", "rank = 10\ntags = ["));
  REQUIRE(ranked.rules.size() == 1);
  CHECK(ranked.rules[0].rank == 10);
  CHECK_THAT(single_error(replaced(k_valid, "tags = [", "rank = 0\ntags = [")).message, Catch::Contains("rank"));
  CHECK_THAT(single_error(replaced(k_valid, "tags = [", "rank = \"first\"\ntags = [")).message, Catch::Contains("rank"));
}

TEST_CASE("scope and action: the folder's default, or what the file says", "[rules][loader]") {
  SECTION("left out: the folder's default") {
    gd::RuleLoadResult cuda = load(k_valid);
    REQUIRE(cuda.rules.size() == 1);
    CHECK(cuda.rules[0].scope == gd::Scope::node);
    CHECK(cuda.rules[0].action == gd::Action::fix_config);
    gd::RuleLoadResult ml = load(replaced(k_valid, "id = \"cuda.example\"", "id = \"ml.example\""), "ml/example.toml");
    REQUIRE(ml.rules.size() == 1);
    CHECK(ml.rules[0].scope == gd::Scope::environment);
    CHECK(ml.rules[0].action == gd::Action::fix_environment);
    gd::RuleLoadResult site = load(replaced(k_valid, "id = \"cuda.example\"", "id = \"site.example\""), "site/example.toml");
    REQUIRE(site.rules.size() == 1);
    CHECK(site.rules[0].scope == gd::Scope::node);
  }
  SECTION("named in the file") {
    gd::RuleLoadResult result = load(replaced(k_valid, "area = \"cuda\"\n", "area = \"cuda\"\nscope = \"environment\"\naction = \"reset-gpu\"\n"));
    REQUIRE(result.errors.empty());
    CHECK(result.rules[0].scope == gd::Scope::environment);
    CHECK(result.rules[0].action == gd::Action::reset_gpu);
  }
  SECTION("a value outside the documented set is an error on its line") {
    gd::Error scope = single_error(replaced(k_valid, "area = \"cuda\"\n", "area = \"cuda\"\nscope = \"nodes\"\n"));
    CHECK(scope.message == "bad scope 'nodes' (use node or environment) (did you mean 'node'?)");
    CHECK(scope.line == 5);
    gd::Error action = single_error(replaced(k_valid, "area = \"cuda\"\n", "area = \"cuda\"\naction = \"reboot-node\"\n"));
    CHECK(action.message.starts_with("bad action 'reboot-node' (use one of none, fix-environment, fix-config, update-software, "
                                     "restart-service, reset-gpu, reboot, replace-hardware)"));
    CHECK(action.line == 5);
    gd::Error type = single_error(replaced(k_valid, "area = \"cuda\"\n", "area = \"cuda\"\nscope = 1\n"));
    CHECK(type.message == "'scope' must be a string, not a integer");
  }
}

}  // namespace GD_UNITY_ID
