// The form of a rule fixture (support/rule_fixture.hpp, tests/rules/README.md): a base plus what
// differs. Each mistake an author can make is refused with the fixture's file named, so that a
// typo never quietly tests a different host.

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"

#include <string>

#include "rule_fixture.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

const char* const k_base = R"({"about": "A host with the module loaded and one GPU.",
  "facts": {"kmod.nvidia.loaded": true, "nvml.device_count": 1,
            "kmod.nvidia.version": {"state": "present", "value": "580.159.04", "source": "/proc/driver/nvidia/version"}}})";

/// The fixture `text`, resolved against a bases folder holding `host.json` (k_base).
gd::Result<gd::test::RuleFixture> resolve(const std::string& text, const char* base = k_base) {
  gd::test::TempTree tree;
  tree.file("/bases/host.json", base);
  return gd::test::resolve_rule_fixture(text, "tests/rules/x/positive/case.json", tree.at("/bases"));
}

std::string error_of(const gd::Result<gd::test::RuleFixture>& fixture) {
  REQUIRE_FALSE(fixture);
  CHECK(fixture.error().file == "tests/rules/x/positive/case.json");
  return fixture.error().message;
}

}  // namespace

TEST_CASE("a fixture is its base, its changed facts and its removals", "[rules][fixture-form]") {
  auto fixture = resolve(R"({"about": "The GPU is gone from NVML.", "base": "host",
    "facts": {"nvml.device_count": 0, "nvml.init.result": 0}, "remove": ["kmod.nvidia.version"],
    "expect": {"fix_contains": ["x"]}})");
  REQUIRE(fixture);
  CHECK(fixture->facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(fixture->facts.get_int("nvml.device_count"_fact) == 0);
  CHECK(fixture->facts.get_int("nvml.init.result"_fact) == 0);
  CHECK(fixture->facts.find("kmod.nvidia.version"_fact) == nullptr);
  CHECK(fixture->facts.all().size() == 3);
  CHECK(fixture->expect["fix_contains"][0] == "x");

  auto alone = resolve(R"({"facts": {"nvml.device_count": 2}})");
  REQUIRE(alone);
  CHECK(alone->facts.all().size() == 1);
  CHECK(alone->expect.is_null());

  // The base's source stays with a fact the fixture does not touch.
  auto same = resolve(R"({"base": "host"})");
  REQUIRE(same);
  CHECK(same->facts.find("kmod.nvidia.version"_fact)->source == "/proc/driver/nvidia/version");
}

TEST_CASE("a fixture naming an unknown base is refused", "[rules][fixture-form]") {
  CHECK_THAT(error_of(resolve(R"({"base": "hots", "facts": {}})")), Catch::Contains("unknown base 'hots'"));
  CHECK_THAT(error_of(resolve(R"({"base": "../bases/host"})")), Catch::Contains("unknown base"));
}

TEST_CASE("a fixture with an unknown key is refused", "[rules][fixture-form]") {
  // A misspelt "expect" would otherwise test nothing; a bare fact at the top is no longer a fixture.
  CHECK_THAT(error_of(resolve(R"({"base": "host", "expcet": {}})")), Catch::Contains("unknown key 'expcet'"));
  CHECK_THAT(error_of(resolve(R"({"nvml.device_count": 1})")), Catch::Contains("unknown key 'nvml.device_count'"));
}

TEST_CASE("a fixture removing a fact its base lacks is refused", "[rules][fixture-form]") {
  CHECK_THAT(error_of(resolve(R"({"base": "host", "remove": ["nvml.init.result"]})")),
             Catch::Contains("\"remove\" names 'nvml.init.result', which base 'host' lacks"));
  CHECK_THAT(error_of(resolve(R"({"remove": ["nvml.device_count"]})")), Catch::Contains("needs a \"base\""));
  CHECK_THAT(error_of(resolve(R"({"base": "host", "facts": {"nvml.device_count": 2}, "remove": ["nvml.device_count"]})")),
             Catch::Contains("both in \"facts\" and in \"remove\""));
}

TEST_CASE("a fixture restating its base's value is refused", "[rules][fixture-form]") {
  // It would read as a change; the fixture must state only what differs.
  CHECK_THAT(error_of(resolve(R"({"base": "host", "facts": {"nvml.device_count": {"state": "present", "value": 1}}})")),
             Catch::Contains("fact 'nvml.device_count' has the same value as in base 'host'"));
  // A different source is a difference.
  CHECK(resolve(R"({"base": "host", "facts": {"nvml.device_count": {"value": 1, "source": "helper"}}})"));
}

TEST_CASE("a base may build on another base, but not in a loop", "[rules][fixture-form]") {
  gd::test::TempTree tree;
  tree.file("/bases/host.json", k_base);
  tree.file("/bases/no-gpu.json", R"({"about": "The host after its GPU fell off.", "base": "host",
    "facts": {"nvml.device_count": 0}, "remove": ["kmod.nvidia.version"]})");
  tree.file("/bases/a.json", R"({"about": "a", "base": "b"})");
  tree.file("/bases/b.json", R"({"about": "b", "base": "a"})");
  auto fixture = gd::test::resolve_rule_fixture(R"({"base": "no-gpu", "facts": {"nvml.init.result": 0}})", "case.json",
                                                tree.at("/bases"));
  REQUIRE(fixture);
  CHECK(fixture->facts.get_int("nvml.device_count"_fact) == 0);
  CHECK(fixture->facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(fixture->facts.find("kmod.nvidia.version"_fact) == nullptr);
  CHECK(fixture->facts.all().size() == 3);
  auto loop = gd::test::resolve_rule_fixture(R"({"base": "a"})", "case.json", tree.at("/bases"));
  REQUIRE_FALSE(loop);
  CHECK_THAT(loop.error().message, Catch::Contains("too deep"));
}

TEST_CASE("a base needs an about and no expectations", "[rules][fixture-form]") {
  auto no_about = resolve(R"({"base": "host"})", R"({"facts": {}})");
  REQUIRE_FALSE(no_about);
  CHECK_THAT(no_about.error().message, Catch::Contains("needs an \"about\""));
  auto stray = resolve(R"({"base": "host"})", R"({"about": "x", "facts": {}, "expect": {}})");
  REQUIRE_FALSE(stray);
  CHECK_THAT(stray.error().message, Catch::Contains("unknown key 'expect' in a base"));
}

TEST_CASE("the facts of a fixture are checked against the catalogue", "[rules][fixture-form]") {
  CHECK_THAT(error_of(resolve(R"({"base": "host", "facts": {"nvml.devcie_count": 1}})")),
             Catch::Contains("unknown fact 'nvml.devcie_count'"));
}

}  // namespace GD_UNITY_ID
