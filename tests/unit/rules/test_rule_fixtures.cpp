// Every rule under rules/ has fixtures under tests/rules/<rule-id>/ (GUIDE 4.5): each
// positive/*.json makes the rule fire, each negative/*.json does not (nor leaves it undecided),
// each optional inconclusive/*.json leaves it undecided. Fixtures run against the whole rule
// set, so supersession counts: a negative may be a case a more specific rule explains, and then
// it must say which ("expect": {"superseded_by": "<rule id>"}), so that a negative can never pass
// because some other rule happened to fire.
//
// A fixture is a base of tests/rules/bases/ plus what differs (support/rule_fixture.hpp), and may
// state what the finding must tell the user (tests/rules/README.md):
//   {"base": "...", "facts": {...}, "remove": [...],
//    "expect": {"message_contains": ["..."], "fix_contains": ["...", ["a", "b"]], "fix_lacks": ["..."],
//               "evidence": {"fact": "value"}, "superseded_by": "rule.id", "confirmed": false, ...}}
// Every fixture must describe a host that can exist (support/fact_consistency.hpp), and a
// positive's finding must not print a placeholder whose fact the fixture lacks.
//
// GD_RULE_FIXTURE_DUMP=DIR writes each fixture's resolved facts and "expect" to
// DIR/<rule-id>/<kind>/<name>.json (to compare fixtures before and after a change of their form).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fact_consistency.hpp"
#include "rule_fixture.hpp"
#include "rules/evaluator.hpp"
#include "core/finding.hpp"
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
    // bases/ holds the fact sets fixtures start from (support/rule_fixture.hpp), not a rule's fixtures.
    if (entry.is_directory() && entry.path().filename() != "bases" && !contains(ids, entry.path().filename().string())) {
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

/// Texts a finding must or must not show. One entry is the parts that one text shows together:
/// in fix_contains and fix_lacks a list of strings is parts that must share one fix step.
using TextParts = std::vector<std::string>;

/// What a fixture says its finding must show (the optional "expect" object).
struct Expectation {
  std::vector<std::string> message_contains;
  std::vector<std::string> message_lacks;
  std::vector<std::string> why_contains;
  std::vector<std::string> why_lacks;
  std::vector<TextParts> fix_contains;   ///< each: some fix step (placeholders filled) shows every part
  std::vector<TextParts> fix_lacks;      ///< each: no fix step shows every part
  std::vector<std::string> fix_first_contains;  ///< the first step, the one a user runs first
  std::string severity;                  ///< "info", "warning" or "error"; empty: not checked
  std::vector<std::pair<std::string, std::string>> evidence;  ///< fact, value as the report prints it
  std::string superseded_by;
  /// A positive's finding must be confirmed by CUDA (the default) or, with "confirmed": false,
  /// reported unconfirmed because the CUDA proof was not run (the rule's confirmed_by is unknown).
  bool confirmed = true;
  bool about_the_finding = false;  ///< a key that only a positive's finding can satisfy
};

std::vector<std::string> strings_of(const nlohmann::json& value) {
  std::vector<std::string> out;
  for (const auto& text : value) out.push_back(text.get<std::string>());
  return out;
}

std::vector<TextParts> parts_of(const nlohmann::json& value) {
  std::vector<TextParts> out;
  for (const auto& entry : value) {
    out.push_back(entry.is_array() ? strings_of(entry) : TextParts{entry.get<std::string>()});
  }
  return out;
}

Expectation expectation_of(const nlohmann::json& expect) {
  Expectation out;
  if (!expect.is_object()) return out;
  for (const auto& [key, value] : expect.items()) {
    if (key == "superseded_by") {
      out.superseded_by = value.get<std::string>();
      continue;
    }
    out.about_the_finding = true;
    if (key == "message_contains") {
      out.message_contains = strings_of(value);
    } else if (key == "message_lacks") {
      out.message_lacks = strings_of(value);
    } else if (key == "why_contains") {
      out.why_contains = strings_of(value);
    } else if (key == "why_lacks") {
      out.why_lacks = strings_of(value);
    } else if (key == "fix_contains") {
      out.fix_contains = parts_of(value);
    } else if (key == "fix_lacks") {
      out.fix_lacks = parts_of(value);
    } else if (key == "fix_first_contains") {
      out.fix_first_contains = strings_of(value);
    } else if (key == "severity") {
      out.severity = value.get<std::string>();
    } else if (key == "evidence") {
      for (const auto& [fact, shown] : value.items()) out.evidence.emplace_back(fact, shown.get<std::string>());
    } else if (key == "confirmed") {
      out.confirmed = value.get<bool>();
    } else {
      FAIL_CHECK("unknown key in \"expect\": " << key);
    }
  }
  return out;
}

bool shows_all(const std::string& text, const TextParts& parts) {
  return std::all_of(parts.begin(), parts.end(), [&](const std::string& part) { return text.find(part) != std::string::npos; });
}

bool a_step_shows(const std::vector<std::string>& steps, const TextParts& parts) {
  return std::any_of(steps.begin(), steps.end(), [&](const std::string& step) { return shows_all(step, parts); });
}

std::string joined(const TextParts& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "\"" : " + \"") + part + "\"";
  return out;
}

/// What the finding tells the user, against the fixture's text expectations. Each failure says
/// which text lacks (or shows) which part; the finding's texts are printed with it.
void check_texts(const gd::Finding& finding, const Expectation& expect) {
  std::string steps;
  for (const std::string& step : finding.fix) steps += "  " + step + "\n";
  INFO("message: " << finding.message);
  INFO("why: " << finding.why);
  INFO("fix steps:\n" << steps);
  auto shows = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  for (const std::string& part : expect.message_contains) {
    INFO("the message must show \"" << part << "\"");
    CHECK(shows(finding.message, part));
  }
  for (const std::string& part : expect.message_lacks) {
    INFO("the message must not show \"" << part << "\"");
    CHECK_FALSE(shows(finding.message, part));
  }
  for (const std::string& part : expect.why_contains) {
    INFO("why must show \"" << part << "\"");
    CHECK(shows(finding.why, part));
  }
  for (const std::string& part : expect.why_lacks) {
    INFO("why must not show \"" << part << "\"");
    CHECK_FALSE(shows(finding.why, part));
  }
  for (const TextParts& parts : expect.fix_contains) {
    INFO("a fix step must show " << joined(parts));
    CHECK(a_step_shows(finding.fix, parts));
  }
  for (const TextParts& parts : expect.fix_lacks) {
    INFO("no fix step may show " << joined(parts));
    CHECK_FALSE(a_step_shows(finding.fix, parts));
  }
  for (const std::string& part : expect.fix_first_contains) {
    INFO("the first fix step must show \"" << part << "\"");
    REQUIRE_FALSE(finding.fix.empty());
    CHECK(shows(finding.fix.front(), part));
  }
  if (!expect.severity.empty()) {
    CHECK(std::string(gd::to_string(finding.severity)) == expect.severity);
  }
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
        gd::Result<gd::test::RuleFixture> fixture = gd::test::load_rule_fixture(file);
        INFO(file.string());
        if (!fixture) {
          FAIL_CHECK(fixture.error().describe());
          continue;
        }
        const gd::FactSet* facts = &fixture->facts;
        Expectation expect = expectation_of(fixture->expect);
        if (const char* dump = std::getenv("GD_RULE_FIXTURE_DUMP")) {
          fs::path target = fs::path(dump) / rule.id / kind / file.filename();
          fs::create_directories(target.parent_path());
          std::ofstream(target) << nlohmann::json({{"facts", gd::facts_to_json(*facts)}, {"expect", fixture->expect}}).dump(1)
                                << "\n";
        }
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
            check_texts(*finding, expect);
            for (const auto& [fact, shown] : expect.evidence) {
              auto it = std::find_if(finding->evidence.begin(), finding->evidence.end(),
                                     [&](const gd::Evidence& e) { return e.fact == fact; });
              INFO("expected evidence " << fact << " = " << shown);
              REQUIRE(it != finding->evidence.end());
              CHECK(it->value == shown);
            }
          }
        } else if (label == "negative") {
          {
            INFO("only \"superseded_by\" applies to a negative's \"expect\"");
            CHECK_FALSE(expect.about_the_finding);
          }
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
          {
            INFO("an inconclusive fixture has no finding to expect anything of");
            CHECK_FALSE(expect.about_the_finding);
            CHECK(expect.superseded_by.empty());
          }
          CHECK(contains(undecided, rule.id));
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}

}  // namespace GD_UNITY_ID
