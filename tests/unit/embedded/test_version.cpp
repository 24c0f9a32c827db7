// gpudoctor --version (src/cli/version.cpp): version, commit and target, from what the build
// wrote (cmake/BuildInfo.cmake). tests/e2e/test_release.sh checks the released binaries' line
// against the commit they were packed from.

#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "embedded/version.hpp"
#include "embedded/build_info.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

TEST_CASE("--version names the version, the commit and the target", "[version]") {
  std::string line = gd::version_line();
  INFO(line);
  CHECK(std::regex_match(line, std::regex(R"(gpudoctor [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown), [a-z0-9_]+-linux-[a-z0-9-]+\))")));
  CHECK(line.starts_with("gpudoctor " GD_VERSION " ("));
  // The target is the one this code was compiled for.
#if defined(__x86_64__)
  CHECK(gd::build_target().starts_with("x86_64-linux-"));
#elif defined(__aarch64__)
  CHECK(gd::build_target().starts_with("aarch64-linux-"));
#endif
  // A fixed length, whatever git's own abbreviation would be (two clones give one binary).
  std::string_view commit = gd::build_commit();
  if (commit != "unknown") CHECK(commit.substr(0, commit.find('-')).size() == 12);
}

}  // namespace GD_UNITY_ID
