// The cases that run a tool of this machine ([needs-NAME], host_tools.hpp) run only in their own
// ctest entries (tests/CMakeLists.txt, GD_UNIT_NEEDS), which report a missing tool as a skip. A
// tag that names no entry, or an entry that ctest does not run, would make cases that run
// nowhere: the three lists must agree.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "host_tools.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

#ifndef GD_UNIT_NEEDS
#error "GD_UNIT_NEEDS must list the ctest entries of the [needs-*] cases (tests/CMakeLists.txt)"
#endif

TEST_CASE("unit tests: every [needs-*] case has a ctest entry that reports its skip", "[unit-needs]") {
  std::set<std::string> from_cmake;
  std::istringstream names(GD_UNIT_NEEDS);
  for (std::string name; std::getline(names, name, ',');) {
    from_cmake.insert(name);
  }
  std::set<std::string> from_table;
  for (const gd::test::HostTool& tool : gd::test::host_tools()) {
    from_table.insert(tool.name);
  }
  CHECK(from_cmake == from_table);

  std::map<std::string, int> cases_per_name;
  for (const Catch::TestCase& test : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    int needs = 0;
    for (const std::string& tag : test.tags) {
      if (tag.starts_with("needs-")) {
        ++needs;
        std::string name = tag.substr(6);
        INFO(test.name << " has [" << tag << "]");
        CHECK(from_table.count(name) == 1);
        ++cases_per_name[name];
      }
    }
    INFO(test.name);
    CHECK(needs <= 1);  // one ctest entry runs it
  }
  for (const std::string& name : from_table) {
    INFO("[needs-" << name << "] tags no case");
    CHECK(cases_per_name[name] > 0);
  }
}

}  // namespace GD_UNITY_ID
