#include <catch2/catch.hpp>

#include <array>
#include <string_view>

#include "util/spelling.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

TEST_CASE("edit_distance counts insertions, deletions and substitutions", "[util][spelling]") {
  CHECK(gd::edit_distance("", "") == 0);
  CHECK(gd::edit_distance("cuInit", "cuInit") == 0);
  CHECK(gd::edit_distance("cuda.init.reslt", "cuda.init.result") == 1);  // one insertion
  CHECK(gd::edit_distance("severty", "severity") == 1);
  CHECK(gd::edit_distance("kitten", "sitting") == 3);
  CHECK(gd::edit_distance("abc", "") == 3);
}

TEST_CASE("closest_name suggests only near candidates", "[util][spelling]") {
  constexpr std::array<std::string_view, 3> k_names = {"error", "warning", "info"};
  CHECK(gd::closest_name("eror", k_names) == "error");
  CHECK(gd::closest_name("warnign", k_names) == "warning");
  CHECK(gd::closest_name("critical", k_names).empty());  // nothing within 3 edits
}

}  // namespace GD_UNITY_ID
