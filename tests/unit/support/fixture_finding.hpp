#pragma once
// The finding a rule fixture makes, for tests of what a finding tells the user (fix and why texts):
// the facts of tests/rules/<id>/<fixture> run through the whole rule set.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rules/evaluator.hpp"
#include "rule_fixture.hpp"
#include "rules/rule_files.hpp"

#ifndef GD_SOURCE_DIR
#error "GD_SOURCE_DIR must name the repository root"
#endif

namespace gd::test {

/// The finding `id` on the facts of tests/rules/<id>/<fixture>; fails the test when it does not fire.
inline gd::Finding finding_on(const std::string& id, const std::string& fixture) {
  namespace fs = std::filesystem;
  static const gd::RuleLoadResult loaded = gd::load_rules_from_path((fs::path(GD_SOURCE_DIR) / "rules").string());
  REQUIRE(loaded.errors.empty());
  fs::path file = fs::path(GD_SOURCE_DIR) / "tests" / "rules" / id / fixture;
  gd::Result<RuleFixture> resolved = load_rule_fixture(file);
  REQUIRE(resolved);
  gd::Evaluation evaluation = gd::evaluate(loaded.rules, resolved->facts);
  auto it = std::find_if(evaluation.findings.begin(), evaluation.findings.end(),
                         [&](const gd::Finding& f) { return f.id == id; });
  REQUIRE(it != evaluation.findings.end());
  return *it;
}

/// Every fix step, one per line.
inline std::string all_fix_lines(const gd::Finding& finding) {
  std::string out;
  for (const std::string& line : finding.fix) out += line + "\n";
  return out;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace gd::test
