#include "probes/shared/driver_cuda_versions.hpp"

#include <catch2/catch.hpp>

using gd::cuda_version_for_driver;

TEST_CASE("driver cuda versions: branches", "[probes][driver_cuda_versions]") {
  // The real H200: 580.159.04, cuDriverGetVersion 13000.
  CHECK(cuda_version_for_driver("580.159.04") == "13.0");
  CHECK(cuda_version_for_driver("575.51.03") == "12.9");
  CHECK(cuda_version_for_driver("570.124.06") == "12.8");
  CHECK(cuda_version_for_driver("550.54.14") == "12.4");
  CHECK(cuda_version_for_driver("535.161.07") == "12.2");
  CHECK(cuda_version_for_driver("470.256.02") == "11.4");
  CHECK(cuda_version_for_driver("595.45.04") == "13.2");
  CHECK(cuda_version_for_driver("580") == "13.0");
  // Not in the table: 565 (no banner found), newer branches, garbage.
  CHECK_FALSE(cuda_version_for_driver("565.57.01"));
  CHECK_FALSE(cuda_version_for_driver("600.10.01"));
  CHECK_FALSE(cuda_version_for_driver("x.1"));
  CHECK_FALSE(cuda_version_for_driver(""));
}
