// --target-gpu and --target-driver (issue 18): every accepted form names the GPU the table knows,
// and anything else is refused with a message, never guessed.

#include <catch2/catch.hpp>

#include "probes/target/target_gpu.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

TEST_CASE("target gpu: a PCI id takes the GPU table's row", "[target]") {
  auto gpu = gd::parse_target_gpu("10de:2bb5");
  REQUIRE(gpu);
  CHECK(gpu->device_id == 0x2bb5);
  CHECK(gpu->product == "RTX PRO 6000 Server");
  CHECK(gpu->chip == "GB202");
  CHECK(gpu->architecture == "Blackwell");
  CHECK(gpu->compute_capability == "12.0");
  CHECK(gpu->min_driver == "575.57.08");
  auto bare = gd::parse_target_gpu("0x2335");
  REQUIRE(bare);
  CHECK(bare->compute_capability == "9.0");
  CHECK(bare->product == "H200 SXM 141GB");
}

TEST_CASE("target gpu: product names, whatever their spelling", "[target]") {
  for (const char* name : {"H200", "h200", "NVIDIA H200", "nvidia-h200"}) {
    INFO(name);
    auto gpu = gd::parse_target_gpu(name);
    REQUIRE(gpu);
    CHECK(gpu->device_id == 0x2335);
  }
  auto pro = gd::parse_target_gpu("RTX PRO 6000");
  REQUIRE(pro);
  CHECK(pro->compute_capability == "12.0");
  auto b300 = gd::parse_target_gpu("B300");
  REQUIRE(b300);
  CHECK(b300->compute_capability == "10.3");
  CHECK(b300->min_driver == "580.82.07");
}

TEST_CASE("target gpu: a compute capability alone", "[target]") {
  for (auto [text, cc, arch] : {std::tuple{"sm_120", "12.0", "Blackwell"}, std::tuple{"sm_90a", "9.0", "Hopper"},
                                std::tuple{"compute_86", "8.6", "Ampere"}, std::tuple{"8.9", "8.9", "Ada"},
                                std::tuple{"7.5", "7.5", "Turing"}, std::tuple{"sm_70", "7.0", "Volta"}}) {
    INFO(text);
    auto gpu = gd::parse_target_gpu(text);
    REQUIRE(gpu);
    CHECK(gpu->compute_capability == cc);
    CHECK(gpu->architecture == arch);
    CHECK_FALSE(gpu->device_id);
    CHECK(gpu->min_driver.empty());
  }
}

TEST_CASE("target gpu: refused, with what is accepted", "[target]") {
  for (const char* text : {"", "H9000", "sm_", "sm_x0", "99.0", "10de:", "10de:zzzz", "10de:12345", "gpu"}) {
    INFO(text);
    auto gpu = gd::parse_target_gpu(text);
    REQUIRE_FALSE(gpu);
    CHECK_THAT(gpu.error(), Catch::Contains("--target-gpu"));
  }
  auto amd = gd::parse_target_gpu("1002:73bf");
  REQUIRE_FALSE(amd);
  CHECK_THAT(amd.error(), Catch::Contains("not an NVIDIA PCI id"));
}

TEST_CASE("target driver: versions nvidia-smi prints", "[target]") {
  CHECK(gd::parse_target_driver("580.95.05").value_or("") == "580.95.05");
  CHECK(gd::parse_target_driver("550.54").value_or("") == "550.54");
  for (const char* text : {"", "580", "58x.1", "580.95.05.1", "12.4", "580..1", "-580.1", "5800.1"}) {
    INFO(text);
    auto driver = gd::parse_target_driver(text);
    REQUIRE_FALSE(driver);
    CHECK_THAT(driver.error(), Catch::Contains("--target-driver"));
  }
}

}  // namespace GD_UNITY_ID
