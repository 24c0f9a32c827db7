// Every rule under rules/ has fixtures under tests/rules/<rule-id>/ (GUIDE 4.5): each
// positive/*.json makes the rule fire, each negative/*.json does not (nor leaves it undecided),
// each optional inconclusive/*.json leaves it undecided. Fixtures run against the whole rule
// set, so supersession counts: a negative may be a case a more specific rule explains, and then
// it must say which ("expect": {"superseded_by": "<rule id>"}), so that a negative can never pass
// because some other rule happened to fire.
//
// A fixture may wrap its facts and state what the finding must say (tests/rules/README.md):
//   {"facts": {...}, "expect": {"message_contains": ["..."], "evidence": {"fact": "value"},
//                               "superseded_by": "rule.id", "confirmed": false}}
// Every fixture must describe a host that can exist (support/fact_consistency.hpp), and a
// positive's finding must not print a placeholder whose fact the fixture lacks.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fact_consistency.hpp"
#include "rules/evaluator.hpp"
#include "rules/facts_json.hpp"
#include "rules/placeholders.hpp"
#include "rules/rule_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

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

namespace {

/// What a fixture says its finding must show (the optional "expect" object).
struct Expectation {
  std::vector<std::string> message_contains;
  std::vector<std::pair<std::string, std::string>> evidence;  ///< fact, value as the report prints it
  std::string superseded_by;
  /// A positive's finding must be confirmed by CUDA (the default) or, with "confirmed": false,
  /// reported unconfirmed because the CUDA proof was not run (the rule's confirmed_by is unknown).
  bool confirmed = true;
};

Expectation expectation_of(const nlohmann::json& fixture) {
  Expectation out;
  if (!fixture.is_object() || !fixture.contains("expect")) return out;
  const nlohmann::json& expect = fixture["expect"];
  for (const auto& [key, value] : expect.items()) {
    if (key == "message_contains") {
      for (const auto& text : value) out.message_contains.push_back(text.get<std::string>());
    } else if (key == "evidence") {
      for (const auto& [fact, shown] : value.items()) out.evidence.emplace_back(fact, shown.get<std::string>());
    } else if (key == "superseded_by") {
      out.superseded_by = value.get<std::string>();
    } else if (key == "confirmed") {
      out.confirmed = value.get<bool>();
    } else {
      FAIL_CHECK("unknown key in \"expect\": " << key);
    }
  }
  return out;
}

const gd::Finding* finding_of(const gd::Evaluation& evaluation, const std::string& id) {
  for (const gd::Finding& finding : evaluation.findings) {
    if (finding.id == id) return &finding;
  }
  return nullptr;
}

/// The finding that lists `id` among the findings it explains (supersedes), if any.
const gd::Finding* superseder_of(const gd::Evaluation& evaluation, const std::string& id) {
  for (const gd::Finding& finding : evaluation.findings) {
    if (contains(finding.consequences, id)) return &finding;
  }
  return nullptr;
}

/// Placeholders of the rule's texts whose facts the fixture does not have: the finding would
/// print "unknown (not collected)" where the user expects a value.
std::vector<std::string> uncollected_placeholders(const gd::Rule& rule, const gd::FactSet& facts) {
  std::vector<std::string> out;
  std::vector<std::string> texts = {rule.title, rule.message};
  texts.insert(texts.end(), rule.fix.begin(), rule.fix.end());
  for (const std::string& text : texts) {
    for (const gd::Placeholder& placeholder : gd::find_placeholders(text)) {
      if (facts.find(gd::FactName::unchecked(placeholder.fact)) == nullptr && !contains(out, placeholder.fact)) out.push_back(placeholder.fact);
    }
  }
  return out;
}

}  // namespace

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
        Expectation expect = expectation_of(nlohmann::json::parse(text, nullptr, false));
        for (const std::string& contradiction : gd::test::fact_contradictions(*facts)) {
          FAIL_CHECK("the fixture describes a host that cannot exist: " << contradiction);
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
        for (const gd::Finding& finding : evaluation.findings) {
          summary += " " + finding.id;
          for (const std::string& consequence : finding.consequences) summary += " (explains " + consequence + ")";
        }
        summary += "; undecided:";
        for (const std::string& id : undecided) {
          summary += " " + id;
        }
        INFO(summary);
        std::string label = kind;
        if (label == "positive") {
          CHECK(contains(fired, rule.id));
          for (const std::string& fact : uncollected_placeholders(rule, *facts)) {
            FAIL_CHECK("the finding would print {" << fact << "} as \"" << gd::k_not_collected
                                                   << "\": add the fact to the fixture");
          }
          if (const gd::Finding* finding = finding_of(evaluation, rule.id)) {
            for (const gd::Evidence& evidence : finding->evidence) {
              INFO("evidence " << evidence.fact);
              CHECK(evidence.value != gd::k_not_collected);
            }
            INFO("unconfirmed: " << finding->unconfirmed);
            CHECK(finding->confirmed == expect.confirmed);
            CHECK(finding->unconfirmed.empty() == finding->confirmed);
            for (const std::string& part : expect.message_contains) {
              INFO("message: " << finding->message);
              CHECK(finding->message.find(part) != std::string::npos);
            }
            for (const auto& [fact, shown] : expect.evidence) {
              auto it = std::find_if(finding->evidence.begin(), finding->evidence.end(),
                                     [&](const gd::Evidence& e) { return e.fact == fact; });
              INFO("expected evidence " << fact << " = " << shown);
              REQUIRE(it != finding->evidence.end());
              CHECK(it->value == shown);
            }
          }
        } else if (label == "negative") {
          CHECK_FALSE(contains(fired, rule.id));
          CHECK_FALSE(contains(undecided, rule.id));
          // Quiet because another finding explains it: the fixture must name that finding.
          const gd::Finding* superseder = superseder_of(evaluation, rule.id);
          if (superseder != nullptr || !expect.superseded_by.empty()) {
            INFO("superseded by " << (superseder ? superseder->id : std::string("nothing"))
                                  << "; the fixture expects " << (expect.superseded_by.empty() ? "no supersession" : expect.superseded_by));
            CHECK(superseder != nullptr);
            CHECK((superseder != nullptr && superseder->id == expect.superseded_by));
          }
        } else {
          CHECK(contains(undecided, rule.id));
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}

}  // namespace GD_UNITY_ID
