// Every rule under rules/ has fixtures under tests/rules/<rule-id>/ (GUIDE 4.5): each
// positive/*.json makes the rule fire, each negative/*.json does not (nor leaves it undecided),
// each optional inconclusive/*.json leaves it undecided. Fixtures run against the whole rule
// set, so supersession counts: a negative may be a case a more specific rule explains.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "rules/evaluator.hpp"
#include "rules/facts_json.hpp"
#include "rules/rule_files.hpp"

#ifndef GD_SOURCE_DIR
#error "GD_SOURCE_DIR must name the repository root"
#endif

namespace {

namespace fs = std::filesystem;

const fs::path k_root = GD_SOURCE_DIR;

std::vector<fs::path> json_files(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".json") {
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

gd::RuleLoadResult repository_rules() {
  gd::RuleLoadResult loaded = gd::load_rules_from_path((k_root / "rules").string());
  for (const gd::Error& error : loaded.errors) {
    UNSCOPED_INFO(error.describe());
  }
  return loaded;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

TEST_CASE("the repository's rules load without errors", "[rules][fixtures]") {
  gd::RuleLoadResult loaded = repository_rules();
  CHECK(loaded.errors.empty());
  CHECK_FALSE(loaded.rules.empty());
}

TEST_CASE("every rule has positive and negative fixtures, and no fixture is orphaned", "[rules][fixtures]") {
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::vector<std::string> lacking;
  std::vector<std::string> ids;
  for (const gd::Rule& rule : loaded.rules) {
    ids.push_back(rule.id);
    fs::path folder = k_root / "tests" / "rules" / rule.id;
    if (json_files(folder / "positive").empty() || json_files(folder / "negative").empty()) {
      lacking.push_back(rule.id);
    }
  }
  std::vector<std::string> orphans;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_root / "tests" / "rules", ec)) {
    if (entry.is_directory() && !contains(ids, entry.path().filename().string())) {
      orphans.push_back(entry.path().filename().string());
    }
  }
  for (const std::string& id : lacking) {
    UNSCOPED_INFO("rule " << id << " needs tests/rules/" << id << "/positive/*.json and negative/*.json");
  }
  for (const std::string& id : orphans) {
    UNSCOPED_INFO("tests/rules/" << id << " names no rule");
  }
  CHECK(lacking.empty());
  CHECK(orphans.empty());
}

TEST_CASE("rule fixtures fire, stay quiet or stay undecided as labelled", "[rules][fixtures]") {
  gd::RuleLoadResult loaded = repository_rules();
  REQUIRE(loaded.errors.empty());
  std::size_t checked = 0;
  for (const gd::Rule& rule : loaded.rules) {
    for (const char* kind : {"positive", "negative", "inconclusive"}) {
      for (const fs::path& file : json_files(k_root / "tests" / "rules" / rule.id / kind)) {
        std::ifstream in(file, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        gd::Result<gd::FactSet> facts = gd::facts_from_json_text(text, file.string());
        INFO(file.string());
        if (!facts) {
          FAIL_CHECK(facts.error().describe());
          continue;
        }
        gd::Evaluation evaluation = gd::evaluate(loaded.rules, *facts);
        std::vector<std::string> fired;
        std::vector<std::string> undecided;
        for (const gd::Finding& finding : evaluation.findings) {
          fired.push_back(finding.id);
        }
        for (const gd::Inconclusive& result : evaluation.inconclusive) {
          undecided.push_back(result.id);
        }
        std::string summary = "fired:";
        for (const std::string& id : fired) {
          summary += " " + id;
        }
        summary += "; undecided:";
        for (const std::string& id : undecided) {
          summary += " " + id;
        }
        INFO(summary);
        std::string label = kind;
        if (label == "positive") {
          CHECK(contains(fired, rule.id));
        } else if (label == "negative") {
          CHECK_FALSE(contains(fired, rule.id));
          CHECK_FALSE(contains(undecided, rule.id));
        } else {
          CHECK(contains(undecided, rule.id));
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}
