#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "report/report.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::AreaLine;
using gd::AreaStatus;
using gd::FactSet;
using gd::Finding;
using gd::Severity;

namespace {

/// The facts the probes record on a healthy single-H200 host (driver 580.159.04, CUDA 13.0).
FactSet healthy_h200() {
  FactSet f;
  f.set("kmod.nvidia.loaded"_fact, true, "/proc/driver/nvidia/version");
  f.set("kmod.nvidia.version"_fact, std::string("580.159.04"), "/proc/driver/nvidia/version");
  f.set("kmod.nvidia.flavor"_fact, std::string("open"), "/proc/driver/nvidia/version");
  f.set("env.ld_library_path"_fact, std::string("/usr/local/nvidia/lib64:/usr/local/nvidia/lib"), "env:LD_LIBRARY_PATH");
  f.set_absent("env.cuda_visible_devices"_fact, "env:CUDA_VISIBLE_DEVICES");
  f.set("cuda.helper.status"_fact, std::string("ok"), "helper");
  f.set("cuda.helper.timeout_ms"_fact, std::int64_t{30000}, "helper");
  f.set("cuda.libcuda.loaded"_fact, true, "helper:dlopen");
  f.set("cuda.libcuda.path"_fact, std::string("/usr/local/nvidia/lib64/libcuda.so.580.159.04"), "helper:dladdr");
  f.set("cuda.driver_version"_fact, std::int64_t{13000}, "helper:cuDriverGetVersion");
  f.set("cuda.driver_version.text"_fact, std::string("13.0"), "helper:cuDriverGetVersion");
  f.set("cuda.init.result"_fact, std::int64_t{0}, "helper:cuInit");
  f.set("cuda.init.duration_ms"_fact, std::int64_t{104}, "helper:cuInit");
  f.set("cuda.device_count"_fact, std::int64_t{1}, "helper:cuDeviceGetCount");
  f.set("cuda.device.0.name"_fact, std::string("NVIDIA H200"), "helper:device:0");
  f.set("cuda.device.0.compute_capability"_fact, std::string("9.0"), "helper:device:0");
  f.set("cuda.device.0.total_memory_mib"_fact, std::int64_t{143155}, "helper:device:0");
  f.set("cuda.device.0.pci_bus_id"_fact, std::string("0000:00:06.0"), "helper:device:0");
  f.set("cuda.device.0.context.result"_fact, std::int64_t{0}, "helper:context:0");
  f.set("cuda.device.0.alloc.result"_fact, std::int64_t{0}, "helper:context:0");
  f.set("nvml.loaded"_fact, true, "helper:dlopen-nvml");
  f.set("nvml.init.result"_fact, std::int64_t{0}, "helper:nvmlInit");
  f.set("nvml.driver_version"_fact, std::string("580.159.04"), "helper:nvmlSystemGetDriverVersion");
  f.set("nvml.device_count"_fact, std::int64_t{1}, "helper:nvmlDeviceGetCount");
  f.set("nvml.device.0.name"_fact, std::string("NVIDIA H200"), "helper:nvml-device:0");
  f.set("nvml.device.0.pci_bus_id"_fact, std::string("00000000:00:06.0"), "helper:nvml-device:0");
  return f;
}

/// An 8-GPU host where cuInit fails with CUDA_ERROR_NO_DEVICE while NVML sees every GPU.
FactSet no_device_8_gpus() {
  FactSet f = healthy_h200();
  f.set("env.cuda_visible_devices"_fact, std::string("99"), "env:CUDA_VISIBLE_DEVICES");
  f.set("cuda.libcuda.path"_fact, std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"), "helper:dladdr");
  f.set("cuda.init.result"_fact, std::int64_t{100}, "helper:cuInit");
  f.set("cuda.init.name"_fact, std::string("CUDA_ERROR_NO_DEVICE"), "helper:cuInit");
  f.set_absent("cuda.device_count"_fact, "helper:cuInit", "cuInit did not succeed");
  f.set("nvml.device_count"_fact, std::int64_t{8}, "helper:nvmlDeviceGetCount");
  return f;
}

Finding finding(std::string area, Severity severity) {
  Finding f;
  f.id = area + "/example";
  f.area = std::move(area);
  f.severity = severity;
  return f;
}

const AreaLine& line(const std::vector<AreaLine>& lines, std::string_view id) {
  auto it = std::find_if(lines.begin(), lines.end(), [id](const AreaLine& l) { return l.id == id; });
  INFO("area line " << id);
  REQUIRE(it != lines.end());
  return *it;
}

}  // namespace

TEST_CASE("areas: one line per layer, in order", "[report][areas]") {
  auto lines = gd::build_area_lines(healthy_h200(), {});
  // From the PCI slot up to the user's environment.
  std::vector<std::string> ids;
  for (const auto& l : lines) {
    ids.push_back(l.id);
  }
  CHECK(ids == std::vector<std::string>{"pci", "driver", "devices", "container", "libraries", "cuda", "nvml", "nvlink",
                                        "kernel-log", "limits", "python", "toolkit", "environment"});
}

TEST_CASE("areas: a finding of an area no line answers for gets a line of its own", "[report][areas]") {
  gd::Finding finding;
  finding.id = "x.odd";
  finding.area = "somewhere-else";
  finding.severity = gd::Severity::warning;
  auto lines = gd::build_area_lines(healthy_h200(), {finding});
  const AreaLine& other = line(lines, "other");
  CHECK(other.status == AreaStatus::warning);
  CHECK(other.summary == "x.odd");
}

TEST_CASE("areas: findings mark the line of their area", "[report][areas]") {
  gd::Finding finding;
  finding.id = "dev.uvm-missing";
  finding.area = "devices";
  finding.severity = gd::Severity::error;
  auto lines = gd::build_area_lines(healthy_h200(), {finding});
  CHECK(line(lines, "devices").status == AreaStatus::error);
  CHECK(line(lines, "pci").status != AreaStatus::error);
}

TEST_CASE("areas: a healthy H200", "[report][areas]") {
  auto lines = gd::build_area_lines(healthy_h200(), {});
  const AreaLine& driver = line(lines, "driver");
  CHECK(driver.status == AreaStatus::ok);
  CHECK(driver.summary == "open 580.159.04");

  const AreaLine& cuda = line(lines, "cuda");
  CHECK(cuda.status == AreaStatus::ok);
  CHECK_THAT(cuda.summary, Catch::Contains("cuInit OK"));
  CHECK(cuda.summary == "CUDA 13.0 from /usr/local/nvidia/lib64/libcuda.so.580.159.04; cuInit OK in 104 ms; 1 device");
  REQUIRE(cuda.details.size() == 1);
  CHECK_THAT(cuda.details[0], Catch::Contains("sm_90"));
  CHECK(cuda.details[0] == "GPU 0: NVIDIA H200 · sm_90 · 139.8 GiB · 0000:00:06.0 · context + allocation OK");

  const AreaLine& nvml = line(lines, "nvml");
  CHECK(nvml.status == AreaStatus::ok);
  CHECK(nvml.summary == "driver 580.159.04, 1 GPU");
  CHECK(nvml.details == std::vector<std::string>{"GPU 0: NVIDIA H200 · 00000000:00:06.0"});

  const AreaLine& env = line(lines, "environment");
  CHECK(env.summary == "LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib");
}

TEST_CASE("areas: cuInit fails while NVML sees 8 GPUs", "[report][areas]") {
  auto lines = gd::build_area_lines(no_device_8_gpus(), {});
  const AreaLine& cuda = line(lines, "cuda");
  CHECK_THAT(cuda.summary, Catch::Contains("cuInit failed: 100"));
  CHECK_THAT(cuda.summary, Catch::Contains("NVML sees 8 GPUs"));
  CHECK(cuda.summary ==
        "cuInit failed: 100 CUDA_ERROR_NO_DEVICE (libcuda /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04); NVML sees 8 GPUs");
  CHECK(cuda.details.empty());
  CHECK(cuda.status == AreaStatus::error);  // a failed cuInit marks the line even before a finding explains it

  std::vector<Finding> findings = {finding("cuda", Severity::error)};
  CHECK(line(gd::build_area_lines(no_device_8_gpus(), findings), "cuda").status == AreaStatus::error);

  const AreaLine& nvml = line(lines, "nvml");
  CHECK(nvml.summary == "driver 580.159.04, 8 GPUs");
  CHECK(nvml.details.size() == 8);
  CHECK(line(lines, "environment").summary ==
        "CUDA_VISIBLE_DEVICES=99, LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib");
}

TEST_CASE("areas: helper that hung or crashed", "[report][areas]") {
  FactSet hung = healthy_h200();
  hung.set("cuda.helper.status"_fact, std::string("timeout"), "helper");
  hung.set("cuda.helper.stage"_fact, std::string("cuInit"), "helper");
  hung.set_unknown("cuda.init.result"_fact, "helper hung in cuInit and was killed", "helper:cuInit");
  hung.set_unknown("nvml.device_count"_fact, "helper hung in cuInit and was killed", "helper:nvmlDeviceGetCount");
  CHECK(line(gd::build_area_lines(hung, {}), "cuda").summary == "helper killed after 30000 ms, stuck in cuInit");

  FactSet crashed = healthy_h200();
  crashed.set("cuda.helper.status"_fact, std::string("crashed"), "helper");
  crashed.set("cuda.helper.signal"_fact, std::string("SIGSEGV"), "helper");
  crashed.set("cuda.helper.stage"_fact, std::string("context:0"), "helper");
  CHECK(line(gd::build_area_lines(crashed, {}), "cuda").summary == "helper crashed (SIGSEGV) in context:0");
}

TEST_CASE("areas: layers that could not be checked", "[report][areas]") {
  SECTION("nothing collected") {
    auto lines = gd::build_area_lines(FactSet{}, {});
    CHECK(line(lines, "driver").status == AreaStatus::unknown);
    CHECK(line(lines, "driver").summary == "unknown: not collected");
    CHECK(line(lines, "cuda").status == AreaStatus::skipped);
    CHECK(line(lines, "cuda").summary == "not checked: not collected");
    CHECK(line(lines, "nvml").status == AreaStatus::skipped);
    CHECK(line(lines, "environment").summary == "no CUDA-related variables set");
  }
  SECTION("--no-cuda and an unreadable module file") {
    FactSet f;
    f.set_unknown("cuda.helper.status"_fact, "not checked (--no-cuda)", "helper");
    f.set_unknown("kmod.nvidia.loaded"_fact, "needs root (EACCES (Permission denied))", "/proc/driver/nvidia/version");
    auto lines = gd::build_area_lines(f, {});
    CHECK(line(lines, "cuda").summary == "not checked: not checked (--no-cuda)");
    CHECK(line(lines, "driver").summary == "unknown: needs root (EACCES (Permission denied))");
  }
  SECTION("module not loaded") {
    FactSet f;
    f.set("kmod.nvidia.loaded"_fact, false, "/proc/driver/nvidia/version");
    auto lines = gd::build_area_lines(f, {});
    const AreaLine& driver = line(lines, "driver");
    CHECK(driver.status == AreaStatus::warning);
    CHECK(driver.summary == "not loaded (no /proc/driver/nvidia)");
  }
}

TEST_CASE("areas: findings set the status of their own area only", "[report][areas]") {
  std::vector<Finding> findings = {finding("driver", Severity::warning), finding("nvml", Severity::info)};
  auto lines = gd::build_area_lines(healthy_h200(), findings);
  CHECK(line(lines, "driver").status == AreaStatus::warning);
  CHECK(line(lines, "nvml").status == AreaStatus::info);
  CHECK(line(lines, "cuda").status == AreaStatus::ok);
  findings.push_back(finding("driver", Severity::error));
  CHECK(line(gd::build_area_lines(healthy_h200(), findings), "driver").status == AreaStatus::error);
}

TEST_CASE("areas: libcuda that does not load marks the CUDA line as an error", "[report][areas]") {
  gd::FactSet facts;
  facts.set("cuda.helper.status"_fact, std::string("ok"));
  facts.set("cuda.libcuda.loaded"_fact, false);
  facts.set("cuda.libcuda.dlerror"_fact, std::string("libcuda.so.1: cannot open shared object file: No such file or directory"));
  facts.set_absent("cuda.init.result"_fact, "helper:dlopen", "libcuda did not load");
  auto lines = gd::build_area_lines(facts, {});
  const AreaLine& cuda = line(lines, "cuda");
  CHECK(cuda.status == AreaStatus::error);
  CHECK(cuda.summary == "libcuda.so.1 did not load: libcuda.so.1: cannot open shared object file: No such file or directory");
}

TEST_CASE("areas: a libcuda that is there but broken is never 'not on the search path'", "[report][areas]") {
  gd::FactSet facts;
  facts.set_absent("lib.libcuda.resolved"_fact, "test", "/usr/lib/x86_64-linux-gnu/libcuda.so.1 is where the loader looks, but ...");
  facts.set("lib.libcuda.unloadable"_fact, std::string("empty"));
  facts.set("lib.libcuda.unloadable_path"_fact, std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  facts.set("lib.libcuda.unloadable_size"_fact, std::int64_t{0});
  facts.set("cuda.helper.status"_fact, std::string("ok"));
  facts.set("nvml.loaded"_fact, false);
  facts.set("nvml.dlerror"_fact, std::string("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file too short"));
  auto lines = gd::build_area_lines(facts, {});
  const AreaLine& libraries = line(lines, "libraries");
  CHECK(libraries.status == AreaStatus::error);
  CHECK(libraries.summary == "libcuda.so.1 → /usr/lib/x86_64-linux-gnu/libcuda.so.1 cannot be loaded (empty, 0 bytes)");
  CHECK(line(lines, "nvml").summary == "libnvidia-ml.so.1 did not load: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file too short");
  // Nothing there at all: that is what "not on the search path" means.
  gd::FactSet none;
  none.set_absent("lib.libcuda.resolved"_fact, "test", "libcuda.so.1 is in none of the folders the loader searches");
  CHECK(line(gd::build_area_lines(none, {}), "libraries").summary == "libcuda.so.1 is not on the loader's search path");
}

TEST_CASE("areas: a GPU another job keeps busy is BUSY, not FAILED", "[report][areas]") {
  FactSet facts = healthy_h200();
  facts.set("cuda.device.0.context.result"_fact, std::int64_t{2});
  facts.set_absent("cuda.device.0.alloc.result"_fact);
  facts.set("cuda.device.0.busy"_fact, true);
  auto lines = gd::build_area_lines(facts, {});
  const AreaLine& cuda = line(lines, "cuda");
  REQUIRE(cuda.details.size() == 1);
  CHECK(cuda.details[0] == "GPU 0: NVIDIA H200 · sm_90 · 139.8 GiB · 0000:00:06.0 · BUSY: context 2 while other processes hold it (not proven)");
  facts.set("cuda.device.0.busy"_fact, false);
  auto failed = gd::build_area_lines(facts, {});
  CHECK_THAT(line(failed, "cuda").details[0], Catch::EndsWith("context FAILED (2)"));
}

TEST_CASE("areas: a helper that could not start says why on the CUDA line", "[report][areas]") {
  FactSet facts;
  facts.set("cuda.helper.status"_fact, std::string("exec-failed"));
  facts.set_unknown("cuda.init.result"_fact, "fd limit 10 too low for the helper: raise ulimit -n");
  auto lines = gd::build_area_lines(facts, {});
  CHECK(line(lines, "cuda").summary == "helper exec-failed: fd limit 10 too low for the helper: raise ulimit -n");
}

}  // namespace GD_UNITY_ID
