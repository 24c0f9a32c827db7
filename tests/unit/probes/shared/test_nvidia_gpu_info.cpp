#include <catch2/catch.hpp>
#include <cerrno>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "probes/shared/nvidia_gpu_info.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;

namespace {

constexpr const char* k_h200_info = "/proc/driver/nvidia/gpus/0000:00:06.0/information";

std::string h200_file(const std::string& path) {
  return **gd::test::host_capture("h200-container-580.159.04").paths.at(path).read;
}

FactSet run(Capture capture) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  gd::record_nvidia_params(host, facts);
  gd::record_gpu_information(host, facts);
  return facts;
}

// A proprietary-module GPU without GSP firmware (no "GPU Firmware" line), excluded by
// NVreg_ExcludedGpus: the lines nv-procfs.c prints, in its order.
constexpr std::string_view k_excluded_no_gsp =
    "Model: \t\t Tesla T4\n"
    "IRQ:   \t\t 112\n"
    "GPU UUID: \t GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n"
    "Video BIOS: \t 90.04.38.00.03\n"
    "Bus Type: \t PCIe\n"
    "DMA Size: \t 47 bits\n"
    "DMA Mask: \t 0x7fffffffffff\n"
    "Bus Location: \t 0000:3b:00.0\n"
    "Device Minor: \t 1\n"
    "GPU Excluded:\t Yes\n";

}  // namespace

TEST_CASE("gpu information: the real H200", "[probes][nvidia_gpu_info]") {
  auto info = gd::parse_gpu_information(h200_file(k_h200_info));
  REQUIRE(info);
  CHECK(info->model == "NVIDIA H200");
  CHECK(info->bus_location == "0000:00:06.0");
  CHECK(info->device_minor == 0);
  CHECK(info->gpu_firmware == "580.159.04");
  CHECK(info->excluded == false);
}

TEST_CASE("gpu information: no GSP firmware line, excluded", "[probes][nvidia_gpu_info]") {
  auto info = gd::parse_gpu_information(k_excluded_no_gsp);
  REQUIRE(info);
  CHECK(info->gpu_firmware.empty());
  CHECK(info->device_minor == 1);
  CHECK(info->excluded == true);
  CHECK_FALSE(gd::parse_gpu_information("nothing here\n"));
}

TEST_CASE("gpu information: firmware requested but not running", "[probes][nvidia_gpu_info]") {
  // 580/595 print "N/A" when GSP firmware was requested but the GPU reports no version.
  auto info = gd::parse_gpu_information(
      "Model: \t\t NVIDIA GeForce RTX 5090\nBus Location: \t 0000:01:00.0\n"
      "Device Minor: \t 0\nGPU Firmware: \t N/A\nGPU Excluded:\t No\n");
  REQUIRE(info);
  CHECK(info->gpu_firmware.empty());
  CHECK(info->excluded == false);
}

TEST_CASE("params: the real H200", "[probes][nvidia_gpu_info]") {
  auto params = gd::parse_nvidia_params(h200_file("/proc/driver/nvidia/params"));
  CHECK(params.at("EnableGpuFirmware") == "18");  // 0x12: default mode, fallback allowed (nv-reg.h)
  CHECK(params.at("OpenRmEnableUnsupportedGpus") == "1");
  CHECK(params.at("RegistryDwords").empty());  // quotes taken off
  CHECK(params.at("ExcludedGpus").empty());
  CHECK(params.size() == 42);
}

TEST_CASE("gpu info probe: the captured H200", "[probes][nvidia_gpu_info]") {
  FactSet facts = run(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(facts.get_int("kmod.nvidia.params.enable_gpu_firmware"_fact) == 18);
  CHECK(facts.get_int("kmod.nvidia.gpu_count"_fact) == 1);
  auto list = [&](gd::FactName name) { return std::get<std::vector<std::string>>(facts.find(gd::FactName::unchecked(name))->value); };
  CHECK(list("kmod.nvidia.gpus"_fact) == std::vector<std::string>{"0000:00:06.0 NVIDIA H200"});
  CHECK(list("kmod.nvidia.gpu_firmware_versions"_fact) == std::vector<std::string>{"580.159.04"});
  CHECK(list("kmod.nvidia.device_minors"_fact) == std::vector<std::string>{"0"});
  CHECK(list("kmod.nvidia.excluded_gpus"_fact).empty());
  CHECK(list("kmod.nvidia.gpu_firmware_missing"_fact).empty());
}

TEST_CASE("gpu info probe: two GPUs, one excluded without firmware", "[probes][nvidia_gpu_info]") {
  Capture capture = gd::test::host_capture("h200-container-580.159.04");
  capture.paths["/proc/driver/nvidia/gpus/0000:3b:00.0/information"].read = std::string(k_excluded_no_gsp);
  FactSet facts = run(std::move(capture));
  auto list = [&](gd::FactName name) { return std::get<std::vector<std::string>>(facts.find(gd::FactName::unchecked(name))->value); };
  CHECK(facts.get_int("kmod.nvidia.gpu_count"_fact) == 2);
  CHECK(list("kmod.nvidia.excluded_gpus"_fact) == std::vector<std::string>{"0000:3b:00.0"});
  CHECK(list("kmod.nvidia.gpu_firmware_missing"_fact) == std::vector<std::string>{"0000:3b:00.0"});
  CHECK(list("kmod.nvidia.device_minors"_fact) == std::vector<std::string>{"0", "1"});
}

TEST_CASE("gpu info probe: module not loaded, or files unreadable", "[probes][nvidia_gpu_info]") {
  FactSet none = run(Capture{});
  CHECK(none.find("kmod.nvidia.gpu_count"_fact)->state == FactState::absent);
  CHECK(none.find("kmod.nvidia.params.enable_gpu_firmware"_fact)->state == FactState::absent);

  Capture capture = gd::test::host_capture("h200-container-580.159.04");
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths[k_h200_info].read = std::unexpected(gd::IoError{EACCES});
  capture.paths["/proc/driver/nvidia/params"].read = std::unexpected(gd::IoError{EACCES});
  FactSet denied = run(std::move(capture));
  CHECK(denied.get_int("kmod.nvidia.gpu_count"_fact) == 1);
  const gd::Fact* firmware = denied.find("kmod.nvidia.gpu_firmware_versions"_fact);
  REQUIRE(firmware);
  CHECK(firmware->state == FactState::unknown);
  CHECK_THAT(firmware->reason, Catch::Contains("needs root"));
  CHECK(denied.find("kmod.nvidia.params.enable_gpu_firmware"_fact)->state == FactState::unknown);
}

}  // namespace GD_UNITY_ID
