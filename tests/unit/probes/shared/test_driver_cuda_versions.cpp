#include "probes/shared/driver_cuda_versions.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::cuda_version_for_driver;
using gd::driver_branch_for_cuda;
using gd::first_driver_branch_for_cuda_major;

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

TEST_CASE("driver cuda versions: the branch of a CUDA version", "[probes][driver_cuda_versions]") {
  CHECK(driver_branch_for_cuda(12, 8) == 570);
  CHECK(driver_branch_for_cuda(12, 9) == 575);
  CHECK(driver_branch_for_cuda(13, 0) == 580);
  CHECK(driver_branch_for_cuda(13, 1) == 590);
  CHECK(driver_branch_for_cuda(12, 7) == 570);  // 565 (12.7) is not in the table: the next one
  CHECK(driver_branch_for_cuda(11, 4) == 470);
  CHECK_FALSE(driver_branch_for_cuda(13, 3));  // newer than the table
  CHECK_FALSE(driver_branch_for_cuda(10, 2));  // older than the table
  // Minor-version compatibility's minimum per major (CUDA compatibility guide).
  CHECK(first_driver_branch_for_cuda_major(11) == 450);
  CHECK(first_driver_branch_for_cuda_major(12) == 525);
  CHECK(first_driver_branch_for_cuda_major(13) == 580);
  CHECK_FALSE(first_driver_branch_for_cuda_major(14));
}

}  // namespace GD_UNITY_ID
