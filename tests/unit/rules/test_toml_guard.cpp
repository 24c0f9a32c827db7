// The pre-check for TOML that toml++ 3.3 cannot take (found by the rules fuzz target).

#include <catch2/catch.hpp>

#include "rules/rule_files.hpp"
#include "rules/rule_loader.hpp"
#include "rules/toml_guard.hpp"
#include "source_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::find_unparseable_toml;

TEST_CASE("a table header that does not start with a key is refused with its line", "[rules][toml_guard]") {
  auto problem = find_unparseable_toml("id = \"x\"\n\n[://github.com/x\"]\n");
  CHECK(problem.line == 3);
  CHECK(find_unparseable_toml("[[ = ]]\n").line == 1);
  CHECK(find_unparseable_toml("a = 1\n  [\n").line == 2);
  CHECK(find_unparseable_toml("s\xcf\x96spec = 1\n").line == 1);  // U+03D6 outside a string
  CHECK(find_unparseable_toml("title = \"\xcf\x96 is fine here\" # and \xcf\x96 here\n").line == 0);
}

TEST_CASE("valid TOML passes: headers, arrays over lines, strings and comments with brackets", "[rules][toml_guard]") {
  CHECK(find_unparseable_toml("[when]\n[[when.any]]\n[\"quoted key\"]\n[ spaced ]\n").line == 0);
  CHECK(find_unparseable_toml("\xEF\xBB\xBFid = \"x\"\n").line == 0);  // a byte order mark
  CHECK(find_unparseable_toml("all = [\n  [1, 2],\n  [{ fact = \"x\" }],\n]\n").line == 0);
  CHECK(find_unparseable_toml("why = \"\"\"\n[not a header]\n[:also not]\n\"\"\"\n").line == 0);
  CHECK(find_unparseable_toml("fix = ['''\n[: literal'''\n]\n# [: comment]\n").line == 0);
  CHECK(find_unparseable_toml("x = \"a \\\" [: b\"\n").line == 0);
}

TEST_CASE("every repository rule passes the guard", "[rules][toml_guard]") {
  gd::RuleSourceList list = gd::read_rule_sources(std::string(GD_SOURCE_DIR) + "/rules");
  REQUIRE(list.errors.empty());
  REQUIRE_FALSE(list.sources.empty());
  for (const gd::RuleSource& source : list.sources) {
    INFO(source.path);
    CHECK(find_unparseable_toml(source.text).line == 0);
  }
}

TEST_CASE("the fuzz regressions load as errors naming the file, not as a crash", "[rules][toml_guard]") {
  for (const char* name : {"table-header-not-a-key", "value-at-a-terminator", "non-ascii-outside-strings"}) {
    gd::RuleSource source;
    source.path = std::string("fuzz/") + name + ".toml";
    source.relative_path = source.path;
    source.text = gd::test::source_file(std::string("tests/fuzz/crashes/rules/") + name);
    gd::RuleLoadResult loaded = gd::load_rules(std::span<const gd::RuleSource>(&source, 1));
    INFO(name);
    CHECK(loaded.rules.empty());
    REQUIRE_FALSE(loaded.errors.empty());
    CHECK(loaded.errors.front().file == source.path);
  }
}

}  // namespace GD_UNITY_ID
