#include "probes/container/nvidia_require.hpp"

#include <catch2/catch.hpp>

#include "host_captures.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::compare_require_version;
using gd::evaluate_requirement;
using gd::RequireProperties;
using gd::RequireTruth;

namespace {

/// NVIDIA_REQUIRE_CUDA of the real H200 container (observations.md "env"), as the healthy
/// capture holds it: "cuda>=13.0" OR one of 60 "brand=X,driver>=N,driver<N+1" alternatives.
std::string h200_requirement() {
  gd::Capture capture = gd::test::host_capture("h200-container-580.159.04");
  auto value = capture.env.at("NVIDIA_REQUIRE_CUDA");
  REQUIRE(value.has_value());
  return *value;
}

RequireProperties driver(std::string version, std::optional<std::string> cuda) {
  RequireProperties p;
  p.driver = std::move(version);
  p.cuda = std::move(cuda);
  return p;
}

}  // namespace

TEST_CASE("nvidia require: dsl_compare_version", "[probes][nvidia_require]") {
  CHECK(compare_require_version("13.0", ">=", "13.0") == true);
  CHECK(compare_require_version("13", ">=", "13.0") == true);  // trailing .0 does not count
  CHECK(compare_require_version("13.0", "=", "13") == true);
  CHECK(compare_require_version("12.8", ">=", "13.0") == false);
  CHECK(compare_require_version("580.159.04", ">=", "535") == true);
  CHECK(compare_require_version("580.159.04", "<", "536") == false);
  CHECK(compare_require_version("535.161.07", "<", "536") == true);
  CHECK(compare_require_version("535.161.07", ">=", "535") == true);
  CHECK(compare_require_version("535", ">", "535.0.1") == false);
  CHECK(compare_require_version("535.0.1", ">", "535") == true);
  CHECK(compare_require_version("12.10", ">", "12.9") == true);  // numbers, not text
  CHECK(compare_require_version("12.8", "!=", "12.8.0") == false);
  CHECK(compare_require_version("12.8", "==", "12.8") == std::nullopt);
  CHECK(compare_require_version("12.8a", ">=", "12") == std::nullopt);
}

TEST_CASE("nvidia require: the real H200 requirement is met by 580.159.04 (CUDA 13.0)", "[probes][nvidia_require]") {
  auto result = evaluate_requirement(h200_requirement(), driver("580.159.04", "13.0"));
  CHECK(result.met == RequireTruth::yes);
  CHECK(result.failing.empty());
}

TEST_CASE("nvidia require: the same image on older drivers", "[probes][nvidia_require]") {
  std::string requirement = h200_requirement();
  // 560 (CUDA 12.6): no alternative names a 560 driver, whatever the brand: unmet, and the
  // first term is what libnvidia-container reports ("unsatisfied condition: cuda>=13.0").
  auto r560 = evaluate_requirement(requirement, driver("560.35.03", "12.6"));
  CHECK(r560.met == RequireTruth::no);
  CHECK(r560.failing == "cuda>=13.0");
  // 570 (CUDA 12.8): met through forward compatibility only for the brands listed; the brand is
  // not known before NVML runs, so the verdict waits for it.
  auto r570 = evaluate_requirement(requirement, driver("570.124.06", "12.8"));
  CHECK(r570.met == RequireTruth::unknown);
  CHECK(r570.undecided == "brand");
  RequireProperties tesla = driver("570.124.06", "12.8");
  tesla.brand = "Tesla";  // compared without regard to case (dsl_compare_string)
  CHECK(evaluate_requirement(requirement, tesla).met == RequireTruth::yes);
  RequireProperties geforce = driver("570.124.06", "12.8");
  geforce.brand = "geforce";
  auto r_geforce = evaluate_requirement(requirement, geforce);
  CHECK(r_geforce.met == RequireTruth::no);
  CHECK(r_geforce.failing == "cuda>=13.0");
}

TEST_CASE("nvidia require: simple requirements", "[probes][nvidia_require]") {
  // cuda>=12.8 on a 550 driver (CUDA 12.4): unmet.
  auto old = evaluate_requirement("cuda>=12.8", driver("550.54.14", "12.4"));
  CHECK(old.met == RequireTruth::no);
  CHECK(old.failing == "cuda>=12.8");
  CHECK(evaluate_requirement("cuda>=12.8", driver("570.124.06", "12.8")).met == RequireTruth::yes);
  // AND within a term, OR between terms.
  CHECK(evaluate_requirement("cuda>=12.0,driver>=525", driver("550.54.14", "12.4")).met == RequireTruth::yes);
  CHECK(evaluate_requirement("cuda>=12.0,driver>=560", driver("550.54.14", "12.4")).met == RequireTruth::no);
  CHECK(evaluate_requirement("driver>=560 cuda>=12.4", driver("550.54.14", "12.4")).met == RequireTruth::yes);
  // A false factor decides its term even when another factor is unknown.
  CHECK(evaluate_requirement("driver>=560,brand=tesla", driver("550.54.14", "12.4")).met == RequireTruth::no);
  // Unknown CUDA version (a branch the table lacks): undecided.
  auto unknown = evaluate_requirement("cuda>=12.0", driver("565.57.01", std::nullopt));
  CHECK(unknown.met == RequireTruth::unknown);
  CHECK(unknown.undecided == "cuda");
  // Extra spaces, empty requirement, unsupported property (skipped, as factory.go does).
  CHECK(evaluate_requirement("  cuda>=12.0  ", driver("550.54.14", "12.4")).met == RequireTruth::yes);
  CHECK(evaluate_requirement("", driver("550.54.14", "12.4")).met == RequireTruth::yes);
  CHECK(evaluate_requirement("jetpack>=6", driver("550.54.14", "12.4")).met == RequireTruth::yes);
  // Not PROPERTY OPERATOR VALUE.
  auto broken = evaluate_requirement("cuda", driver("550.54.14", "12.4"));
  CHECK(broken.met == RequireTruth::unknown);
  CHECK(broken.error == "cuda");
  CHECK(evaluate_requirement("cuda=>12", driver("550.54.14", "12.4")).error == "cuda=>12");
}

}  // namespace GD_UNITY_ID
