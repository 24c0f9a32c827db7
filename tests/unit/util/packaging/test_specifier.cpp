#include "util/packaging/specifier.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "packaging_oracle.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::parse_specifiers;
using gd::specifiers_allow;
using namespace gd::test;

TEST_CASE("specifiers: sets allow what packaging allows", "[python][probes][packaging]") {
  REQUIRE(rows("spec").size() >= 4000);
  for (const auto& row : rows("spec")) {
    INFO("set '" << row[1] << "' version " << row[2]);
    auto set = parse_specifiers(row[1]);
    REQUIRE(set);
    auto allowed = specifiers_allow(*set, row[2]);
    REQUIRE(allowed);
    CHECK(*allowed == (row[3] == "1"));
  }
  REQUIRE(rows("badspec").size() >= 15);
  for (const auto& row : rows("badspec")) {
    INFO("set '" << row[1] << "'");
    CHECK_FALSE(parse_specifiers(row[1]));
  }
}

TEST_CASE("specifiers: a version that does not parse is unknown, not refused", "[python][probes][packaging]") {
  auto set = parse_specifiers(">=2.6,<2.7");
  REQUIRE(set);
  CHECK_FALSE(specifiers_allow(*set, "2.6.0 cu124"));
  CHECK_FALSE(specifiers_allow(*set, ""));
  // === compares text, so it alone can judge a non-PEP 440 version.
  auto arbitrary = parse_specifiers("===2.6.0-custom build");
  CHECK_FALSE(arbitrary);  // no spaces in a specifier
  arbitrary = parse_specifiers("===2.6.0-custombuild");
  REQUIRE(arbitrary);
  CHECK(specifiers_allow(*arbitrary, "2.6.0-CustomBuild") == true);
  CHECK(specifiers_allow(*arbitrary, "2.6.0") == false);
}

TEST_CASE("specifiers: the pins of the CUDA Python stack", "[python][probes][packaging]") {
  // torchvision 0.26.0's METADATA (H200 host): "Requires-Dist: torch (==2.11.0)". The torch
  // installed beside it reports 2.11.0 in METADATA and 2.11.0+cu130 in torch/version.py.
  auto torch_pin = parse_specifiers("==2.11.0");
  REQUIRE(torch_pin);
  CHECK(specifiers_allow(*torch_pin, "2.11.0") == true);
  CHECK(specifiers_allow(*torch_pin, "2.11.0+cu130") == true);
  CHECK(specifiers_allow(*torch_pin, "2.10.0+cu128") == false);
  // vllm 0.11.2 pins xformers==0.0.33.post1 and torch==2.9.0 (its wheel's METADATA); xformers
  // releases pin the torch they were built with the same way.
  auto vllm_torch = parse_specifiers("==2.9.0");
  REQUIRE(vllm_torch);
  CHECK(specifiers_allow(*vllm_torch, "2.9.1+cu128") == false);
  auto xformers = parse_specifiers("==0.0.33.post1");
  REQUIRE(xformers);
  CHECK(specifiers_allow(*xformers, "0.0.33") == false);
  CHECK(specifiers_allow(*xformers, "0.0.33.post1") == true);
  // cuda-toolkit 13.0.2 pins its parts with a wildcard on a full version.
  auto runtime = parse_specifiers("==13.0.96.*");
  REQUIRE(runtime);
  CHECK(specifiers_allow(*runtime, "13.0.96") == true);
  CHECK(specifiers_allow(*runtime, "13.0.96.1") == true);
  CHECK(specifiers_allow(*runtime, "13.0.97") == false);
  // A local label only matters when the pin names one.
  auto local_pin = parse_specifiers("==2.6.0+cu124");
  REQUIRE(local_pin);
  CHECK(specifiers_allow(*local_pin, "2.6.0+cu124") == true);
  CHECK(specifiers_allow(*local_pin, "2.6.0+cu126") == false);
  CHECK(specifiers_allow(*local_pin, "2.6.0") == false);
}

}  // namespace GD_UNITY_ID
