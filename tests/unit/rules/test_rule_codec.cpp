// The compiled rule form (rules/rule_codec): what rulec embeds must decode to the very rules the
// TOML files load to, and a damaged blob must be refused, never crash.

#include <catch2/catch.hpp>

#include "rules/embedded_rules.hpp"
#include "rules/rule_codec.hpp"
#include "rules/rule_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

gd::RuleLoadResult repository_rules() {
  return gd::load_rules_from_path(std::string(GD_SOURCE_DIR) + "/rules");
}

}  // namespace

TEST_CASE("compiled rules decode to what was encoded", "[rules][codec]") {
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::string blob = gd::encode_rules(loaded.rules);
  auto decoded = gd::decode_rules(blob);
  REQUIRE(decoded);
  REQUIRE(decoded->size() == loaded.rules.size());
  CHECK(gd::encode_rules(*decoded) == blob);
  for (std::size_t i = 0; i < decoded->size(); ++i) {
    const gd::Rule& a = loaded.rules[i];
    const gd::Rule& b = (*decoded)[i];
    INFO(a.id);
    CHECK(a.id == b.id);
    CHECK(a.severity == b.severity);
    CHECK(a.scope == b.scope);
    CHECK(a.action == b.action);
    CHECK(a.message == b.message);
    CHECK(a.fix == b.fix);
    CHECK(gd::condition_facts(a.when) == gd::condition_facts(b.when));
    CHECK(a.when.operand == b.when.operand);
    CHECK(a.superseded_by.size() == b.superseded_by.size());
  }
}

TEST_CASE("the binary's embedded rules are the repository's", "[rules][codec]") {
  gd::RuleLoadResult loaded = repository_rules();
  gd::RuleLoadResult embedded = gd::load_embedded_rules();
  REQUIRE(embedded.errors.empty());
  REQUIRE(embedded.rules.size() == loaded.rules.size());
  for (std::size_t i = 0; i < loaded.rules.size(); ++i) {
    CHECK(embedded.rules[i].id == loaded.rules[i].id);
    CHECK(embedded.rules[i].file == "rules/" + loaded.rules[i].id.substr(0, loaded.rules[i].id.find('.')) + "/" +
                                        loaded.rules[i].id.substr(loaded.rules[i].id.find('.') + 1) + ".toml");
  }
}

TEST_CASE("a damaged compiled blob is refused", "[rules][codec]") {
  gd::RuleLoadResult loaded = repository_rules();
  std::string blob = gd::encode_rules(loaded.rules);
  CHECK_FALSE(gd::decode_rules(""));
  CHECK_FALSE(gd::decode_rules("gdrules1"));
  CHECK_FALSE(gd::decode_rules(blob + "x"));
  for (std::size_t cut = 0; cut < blob.size(); cut += 97) {
    CHECK_FALSE(gd::decode_rules(std::string_view(blob).substr(0, cut)));
  }
  // Flipped bytes: an error or other rules, but never a crash or a hang.
  for (std::size_t at = 0; at < blob.size(); at += 131) {
    std::string damaged = blob;
    damaged[at] = static_cast<char>(damaged[at] ^ 0xff);
    (void)gd::decode_rules(damaged);
  }
}

}  // namespace GD_UNITY_ID
