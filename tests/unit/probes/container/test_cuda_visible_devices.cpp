#include "probes/container/cuda_visible_devices.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::absent_visible_device;
using gd::malformed_visible_device;

namespace {
const std::vector<std::string> k_uuids = {"GPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f",
                                          "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"};
}

TEST_CASE("cuda visible devices: well-formed values", "[probes][cuda_visible_devices]") {
  CHECK_FALSE(malformed_visible_device("0"));
  CHECK_FALSE(malformed_visible_device("0,1"));
  CHECK_FALSE(malformed_visible_device("1, 0"));
  CHECK_FALSE(malformed_visible_device("GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"));
  CHECK_FALSE(malformed_visible_device("GPU-8932f937"));  // abbreviations are allowed (CUDA guide)
  CHECK_FALSE(malformed_visible_device("MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"));  // R470+
  CHECK_FALSE(malformed_visible_device("MIG-GPU-8932f937-d72c-4106-c12f-20bd9faed9f6/1/0"));  // R450
  // Empty hides every GPU on purpose: not malformed (cuda.visible-devices-hides-gpus covers it).
  CHECK_FALSE(malformed_visible_device(""));
}

TEST_CASE("cuda visible devices: malformed values", "[probes][cuda_visible_devices]") {
  // The CUDA guide's own example: -1 ends the list.
  CHECK(malformed_visible_device("0,2,-1,1") == "-1");
  CHECK(malformed_visible_device("gpu0") == "gpu0");
  CHECK(malformed_visible_device("0,,1") == "");
  CHECK(malformed_visible_device("1gpu2,2ampere") == "1gpu2");
  CHECK(malformed_visible_device("MIG-GPU-8932f937/1") == "MIG-GPU-8932f937/1");
  CHECK(malformed_visible_device("GPU-xyz") == "GPU-xyz");
  CHECK(malformed_visible_device("0,1,0") == "0");  // a repeated ordinal (PyTorch: empty set)
  CHECK(malformed_visible_device("all") == "all");  // NVIDIA_VISIBLE_DEVICES syntax, not CUDA's
}

TEST_CASE("cuda visible devices: entries naming absent GPUs", "[probes][cuda_visible_devices]") {
  CHECK_FALSE(absent_visible_device("0", 1, k_uuids));
  CHECK(absent_visible_device("0,1", 1, k_uuids) == "1");
  CHECK(absent_visible_device("99", 1, k_uuids) == "99");
  CHECK_FALSE(absent_visible_device("GPU-e2c36f54", 2, k_uuids));
  CHECK_FALSE(absent_visible_device("GPU-E2C36F54", 2, k_uuids));
  CHECK(absent_visible_device("GPU-e2c36f54,GPU-deadbeef", 2, k_uuids) == "GPU-deadbeef");
  // MIG UUIDs are not in the driver's files: not checked.
  CHECK_FALSE(absent_visible_device("MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f", 1, k_uuids));
  // Without UUIDs (old driver) a GPU- entry cannot be judged.
  CHECK_FALSE(absent_visible_device("GPU-deadbeef", 1, {}));
  // CUDA stops at a malformed entry; what follows is not looked at.
  CHECK_FALSE(absent_visible_device("0,-1,5", 1, k_uuids));
  CHECK_FALSE(absent_visible_device("", 0, k_uuids));
}

}  // namespace GD_UNITY_ID
