#include "probes/devices/driver_gpus.hpp"

#include <catch2/catch.hpp>

#include <cerrno>

#include "host_captures.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::parse_driver_gpu;

TEST_CASE("driver gpus: the real H200 information file", "[probes][driver_gpus]") {
  gd::Capture capture = gd::test::host_capture("h200-container-580.159.04");
  gd::ReplayHost host(capture);
  gd::DriverGpus gpus = gd::read_driver_gpus(host);
  REQUIRE_FALSE(gpus.error);
  REQUIRE(gpus.gpus.size() == 1);
  const gd::DriverGpu& gpu = gpus.gpus[0];
  CHECK(gpu.bus_id == "0000:00:06.0");
  CHECK(gpu.device_minor == 0);
  CHECK(gpu.uuid == "GPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f");
  CHECK(gpu.model == "NVIDIA H200");
  CHECK(gpus.unreadable.empty());
}

TEST_CASE("driver gpus: minors, tabs and colons in values", "[probes][driver_gpus]") {
  // nv-procfs.c layout: key, colon, tabs and spaces, value; Bus Location holds colons itself.
  gd::DriverGpu gpu = parse_driver_gpu(
      "Model: \t\t NVIDIA GeForce RTX 4090\nIRQ:   \t\t 180\nGPU UUID: \t GPU-6a3b6d1e-2c4f-1a2b-9c8d-0123456789ab\n"
      "Bus Location: \t 0000:c1:00.0\nDevice Minor: \t 3\nGPU Excluded:\t No\n");
  CHECK(gpu.device_minor == 3);
  CHECK(gpu.uuid == "GPU-6a3b6d1e-2c4f-1a2b-9c8d-0123456789ab");
  CHECK(parse_driver_gpu("Device Minor: \t x\n").device_minor == std::nullopt);
  CHECK(parse_driver_gpu("").device_minor == std::nullopt);
}

TEST_CASE("driver gpus: module not loaded, unreadable file", "[probes][driver_gpus]") {
  gd::Capture none;
  gd::ReplayHost empty(none);
  gd::DriverGpus gpus = gd::read_driver_gpus(empty);
  REQUIRE(gpus.error);
  CHECK(gpus.error->code == ENOENT);

  gd::Capture capture;
  capture.paths["/proc/driver/nvidia/gpus"].list = std::vector<std::string>{"0000:01:00.0", "0000:02:00.0"};
  capture.paths["/proc/driver/nvidia/gpus/0000:01:00.0/information"].read = std::string("Device Minor: \t 0\n");
  capture.paths["/proc/driver/nvidia/gpus/0000:02:00.0/information"].read = std::unexpected(gd::IoError{EACCES});
  gd::ReplayHost host(capture);
  gd::DriverGpus two = gd::read_driver_gpus(host);
  REQUIRE(two.gpus.size() == 1);
  CHECK(two.gpus[0].device_minor == 0);
  REQUIRE(two.unreadable.size() == 1);
  CHECK(two.unreadable[0].starts_with("0000:02:00.0 EACCES"));
}

}  // namespace GD_UNITY_ID
