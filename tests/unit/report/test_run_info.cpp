#include <catch2/catch.hpp>

#include "report/run_info.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

TEST_CASE("run info: every mode and scope reads back from its word", "[report][run_info]") {
  for (gd::RunMode mode : {gd::RunMode::live, gd::RunMode::root, gd::RunMode::replay, gd::RunMode::preflight}) {
    CHECK(gd::parse_run_mode(gd::to_string(mode)) == mode);
  }
  for (gd::RunScope scope : {gd::RunScope::all, gd::RunScope::node}) {
    CHECK(gd::parse_run_scope(gd::to_string(scope)) == scope);
  }
}

TEST_CASE("run info: the words are the JSON report's, and nothing else parses", "[report][run_info]") {
  CHECK(gd::to_string(gd::RunMode::live) == "live");
  CHECK(gd::to_string(gd::RunMode::root) == "root");
  CHECK(gd::to_string(gd::RunMode::replay) == "replay");
  CHECK(gd::to_string(gd::RunMode::preflight) == "preflight");
  CHECK(gd::to_string(gd::RunScope::all) == "all");
  CHECK(gd::to_string(gd::RunScope::node) == "node");
  CHECK_FALSE(gd::parse_run_mode("Live").has_value());
  CHECK_FALSE(gd::parse_run_mode("").has_value());
  CHECK_FALSE(gd::parse_run_mode("pre-flight").has_value());
  CHECK_FALSE(gd::parse_run_scope("environment").has_value());
  CHECK_FALSE(gd::parse_run_scope("node ").has_value());
}

}  // namespace GD_UNITY_ID
