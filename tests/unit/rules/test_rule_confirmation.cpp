// Rules that name what the CUDA proof would show (`[confirmed_by]`, issue 18): each has the three
// cases as fixtures (confirmed by a CUDA failure, reported unconfirmed when CUDA was not run,
// refuted by a CUDA success), and no error of the layers below CUDA (libraries, driver, device
// nodes, containers, services) survives a CUDA that ran and proved every GPU: a finding CUDA's
// own success contradicts is a false alarm.

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "fact_consistency.hpp"
#include "rule_fixture.hpp"
#include "rules/evaluator.hpp"
#include "rules/rule_files.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

namespace fs = std::filesystem;
const fs::path k_root = GD_SOURCE_DIR;

struct Fixture {
  fs::path file;
  gd::FactSet facts;
};

std::vector<Fixture> fixtures_of(const std::string& id, const char* kind) {
  std::vector<Fixture> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(k_root / "tests" / "rules" / id / kind, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    // A fixture that does not load fails in test_rule_fixtures.
    if (auto fixture = gd::test::load_rule_fixture(file)) out.push_back({file, std::move(fixture->facts)});
  }
  return out;
}

const gd::Finding* finding_of(const gd::Evaluation& evaluation, const std::string& id) {
  for (const gd::Finding& f : evaluation.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// What a CUDA that ran and proved every GPU on the bus reports.
void overlay_cuda_success(gd::FactSet& facts) {
  std::int64_t gpus = facts.get_int("pci.nvidia_gpu_count"_fact).value_or(1);
  if (gpus < 1) gpus = 1;
  facts.set("cuda.helper.status"_fact, std::string("ok"), "test");
  facts.set("cuda.libcuda.loaded"_fact, true, "test");
  facts.set("cuda.init.result"_fact, std::int64_t{0}, "test");
  facts.set("cuda.driver_version.result"_fact, std::int64_t{0}, "test");
  facts.set("cuda.libcuda.is_stub"_fact, false, "test");
  facts.set("cuda.device_count"_fact, gpus, "test");
  facts.set("cuda.context.failed_count"_fact, std::int64_t{0}, "test");
  facts.set("cuda.kernel.proven_count"_fact, gpus, "test");
  facts.set("cuda.kernel.module_result_codes"_fact, std::vector<std::string>{}, "test");  // every module loaded
  facts.set("cuda.proof.every_pci_gpu"_fact, true, "test");
  facts.set("lib.libcuda.matches_loaded"_fact, true, "test");
  facts.set("nvml.loaded"_fact, true, "test");
  facts.set("nvml.init.result"_fact, std::int64_t{0}, "test");
}

// The rules below CUDA, which predict that the driver API fails: every rule of the libraries,
// driver, device-node and services areas, and the container rules that name CUDA's answer as
// their confirmation. (Other container rules judge the image's CUDA runtime against the driver,
// which fails above cuInit: container.require-cuda-unmet holds while cuInit succeeds.)
bool below_cuda(const gd::Rule& rule) {
  static const std::set<std::string> areas = {"libraries", "driver", "devices", "services"};
  return areas.count(rule.area) == 1 || (rule.area == "container" && rule.confirmed_by.has_value());
}

}  // namespace

TEST_CASE("a rule with confirmed_by has a confirmed, an unconfirmed and a refuted fixture", "[rules][confirmation]") {
  gd::RuleLoadResult loaded = gd::load_rules_from_path((k_root / "rules").string());
  REQUIRE(loaded.errors.empty());
  std::size_t rules_with_confirmation = 0;
  for (const gd::Rule& rule : loaded.rules) {
    if (!rule.confirmed_by) continue;
    ++rules_with_confirmation;
    INFO(rule.id);
    int confirmed = 0, unconfirmed = 0, refuted = 0;
    for (const char* kind : {"positive", "negative"}) {
      for (const Fixture& f : fixtures_of(rule.id, kind)) {
        if (gd::evaluate_condition(rule.when, f.facts) != gd::Truth::yes) continue;
        switch (gd::evaluate_condition(*rule.confirmed_by, f.facts)) {
          // Confirmed: CUDA's answer agrees (a negative then is one a deeper cause supersedes,
          // which test_rule_fixtures checks).
          case gd::Truth::yes: ++confirmed; break;
          // Unconfirmed: the rest of the evidence holds, CUDA gave no answer.
          case gd::Truth::unknown: unconfirmed += std::string(kind) == "positive" ? 1 : 0; break;
          // Refuted: the rest of the evidence holds, CUDA's answer says no.
          case gd::Truth::no: refuted += std::string(kind) == "negative" ? 1 : 0; break;
        }
      }
    }
    CHECK(confirmed > 0);
    CHECK(unconfirmed > 0);
    CHECK(refuted > 0);
  }
  CHECK(rules_with_confirmation >= 20);
}

TEST_CASE("no error below CUDA survives a CUDA that proved every GPU", "[rules][confirmation]") {
  gd::RuleLoadResult loaded = gd::load_rules_from_path((k_root / "rules").string());
  REQUIRE(loaded.errors.empty());
  std::size_t checked = 0;
  for (const gd::Rule& rule : loaded.rules) {
    if (rule.severity != gd::Severity::error || !below_cuda(rule)) continue;
    for (Fixture& f : fixtures_of(rule.id, "positive")) {
      overlay_cuda_success(f.facts);
      // A host where CUDA cannot have worked (no kernel module, no libcuda) is not a refutation.
      if (!gd::test::fact_contradictions(f.facts).empty()) continue;
      INFO(rule.id << ": " << f.file.string() << " with CUDA working on every GPU");
      CHECK(finding_of(gd::evaluate(loaded.rules, f.facts), rule.id) == nullptr);
      ++checked;
    }
  }
  CHECK(checked >= 30);
}

}  // namespace GD_UNITY_ID
