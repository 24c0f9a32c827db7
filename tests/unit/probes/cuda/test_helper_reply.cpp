#include "probes/cuda/helper_reply.hpp"

#include <catch2/catch.hpp>

#include <string>
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::parse_helper_reply;

namespace {

// What gpudoctor-cuda-helper writes on a healthy single-H200 host (driver 580, CUDA 13.0).
constexpr std::string_view k_healthy_h200 =
    "gpudoctor-helper\t1\n"
    "stage\tdlopen-cuda\n"
    "cuda.dlopen\tok\n"
    "cuda.path\t/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
    "stage\tcuDriverGetVersion\n"
    "cuda.driver_version.result\t0\n"
    "cuda.driver_version\t13000\n"
    "stage\tcuInit\n"
    "cuda.init.result\t0\n"
    "cuda.init.name\tCUDA_SUCCESS\n"
    "cuda.init.text\tno error\n"
    "cuda.init.duration_us\t812345\n"
    "stage\tcuDeviceGetCount\n"
    "cuda.device_count.result\t0\n"
    "cuda.device_count\t1\n"
    "stage\tdevice:0\n"
    "cuda.device.0.name\tNVIDIA H200\n"
    "cuda.device.0.uuid\tGPU-2d3a4f5e-1b2c-3d4e-5f60-718293a4b5c6\n"
    "cuda.device.0.pci_bus_id\t0000:18:00.0\n"
    "cuda.device.0.cc_major\t9\n"
    "cuda.device.0.cc_minor\t0\n"
    "cuda.device.0.total_memory_bytes\t150754820096\n"
    "stage\tcontext:0\n"
    "cuda.device.0.context.result\t0\n"
    "cuda.device.0.context.name\tCUDA_SUCCESS\n"
    "cuda.device.0.alloc.result\t0\n"
    "cuda.device.0.alloc.name\tCUDA_SUCCESS\n"
    "stage\tdlopen-nvml\n"
    "nvml.dlopen\tok\n"
    "nvml.path\t/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04\n"
    "stage\tnvmlInit\n"
    "nvml.init.result\t0\n"
    "nvml.init.text\tSuccess\n"
    "nvml.driver_version\t580.159.04\n"
    "nvml.device_count.result\t0\n"
    "nvml.device_count\t1\n"
    "stage\tnvml-device:0\n"
    "nvml.device.0.name\tNVIDIA H200\n"
    "nvml.device.0.uuid\tGPU-2d3a4f5e-1b2c-3d4e-5f60-718293a4b5c6\n"
    "nvml.device.0.pci_bus_id\t00000000:18:00.0\n"
    "stage\tdone\n"
    "end\tok\n";

// NVIDIA's toolkit stub libcuda (lib64/stubs/libcuda.so) first on the path: every call is 34
// and even cuGetErrorName fails, so there is no name; no NVML on that host.
constexpr std::string_view k_stub =
    "gpudoctor-helper\t1\n"
    "stage\tdlopen-cuda\n"
    "cuda.dlopen\tok\n"
    "cuda.path\t/usr/local/cuda-13.0/lib/stubs/libcuda.so\n"
    "stage\tcuDriverGetVersion\n"
    "cuda.driver_version.result\t34\n"
    "stage\tcuInit\n"
    "cuda.init.result\t34\n"
    "cuda.init.duration_us\t0\n"
    "stage\tdlopen-nvml\n"
    "nvml.dlopen\tfail\n"
    "nvml.dlerror\tlibnvidia-ml.so.1: cannot open shared object file: No such file or directory\n"
    "stage\tdone\n"
    "end\tok\n";

}  // namespace

TEST_CASE("helper reply: healthy H200", "[probes][helper_reply]") {
  auto reply = parse_helper_reply(k_healthy_h200);
  REQUIRE(reply);
  CHECK(reply->protocol_version == 1);
  CHECK(reply->complete);
  CHECK(reply->last_stage == "done");
  CHECK(reply->cuda_dlopen_ok == true);
  CHECK(reply->cuda_path == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
  CHECK(reply->cuda_driver_version_call.result == 0);
  CHECK(reply->cuda_driver_version == 13000);
  CHECK(reply->cuda_init.result == 0);
  CHECK(reply->cuda_init.name == "CUDA_SUCCESS");
  CHECK(reply->cuda_init.text == "no error");
  CHECK(reply->cuda_init_duration_us == 812345);
  CHECK(reply->cuda_device_count == 1);
  REQUIRE(reply->cuda_devices.size() == 1);
  const gd::HelperCudaDevice& gpu = reply->cuda_devices[0];
  CHECK(gpu.index == 0);
  CHECK(gpu.name == "NVIDIA H200");
  CHECK(gpu.uuid == "GPU-2d3a4f5e-1b2c-3d4e-5f60-718293a4b5c6");
  CHECK(gpu.pci_bus_id == "0000:18:00.0");
  CHECK(gpu.cc_major == 9);
  CHECK(gpu.cc_minor == 0);
  CHECK(gpu.total_memory_bytes == 150754820096LL);
  CHECK(gpu.context.result == 0);
  CHECK(gpu.alloc.result == 0);
  CHECK(gpu.alloc.name == "CUDA_SUCCESS");
  CHECK(reply->nvml_dlopen_ok == true);
  CHECK(reply->nvml_init.result == 0);
  CHECK(reply->nvml_init.text == "Success");
  CHECK(reply->nvml_driver_version == "580.159.04");
  CHECK(reply->nvml_device_count == 1);
  REQUIRE(reply->nvml_devices.size() == 1);
  CHECK(reply->nvml_devices[0].pci_bus_id == "00000000:18:00.0");
  CHECK(reply->failed_values.empty());
}

TEST_CASE("helper reply: toolkit stub libcuda gives 34", "[probes][helper_reply]") {
  auto reply = parse_helper_reply(k_stub);
  REQUIRE(reply);
  CHECK(reply->complete);
  CHECK(reply->cuda_init.result == 34);
  CHECK_FALSE(reply->cuda_init.name.has_value());
  CHECK(reply->cuda_driver_version_call.result == 34);
  CHECK_FALSE(reply->cuda_driver_version.has_value());
  CHECK_FALSE(reply->cuda_device_count.has_value());
  CHECK(reply->cuda_devices.empty());
  CHECK(reply->nvml_dlopen_ok == false);
  CHECK(reply->nvml_dlerror->starts_with("libnvidia-ml.so.1: cannot open"));
}

TEST_CASE("helper reply: cut short in cuInit keeps what came before", "[probes][helper_reply]") {
  std::string text(k_healthy_h200.substr(0, k_healthy_h200.find("cuda.init.result")));
  text += "cuda.init.res";  // a partial line: the pipe bound cut it, or the helper died mid-write
  auto reply = parse_helper_reply(text);
  REQUIRE(reply);
  CHECK_FALSE(reply->complete);
  CHECK(reply->last_stage == "cuInit");
  CHECK(reply->cuda_driver_version == 13000);
  CHECK_FALSE(reply->cuda_init.result.has_value());
  CHECK_FALSE(reply->nvml_dlopen_ok.has_value());
}

TEST_CASE("helper reply: only the header", "[probes][helper_reply]") {
  auto reply = parse_helper_reply("gpudoctor-helper\t1\n");
  REQUIRE(reply);
  CHECK_FALSE(reply->complete);
  CHECK(reply->last_stage.empty());
}

TEST_CASE("helper reply: garbage is refused with a line number", "[probes][helper_reply]") {
  SECTION("not a reply at all") {
    auto reply = parse_helper_reply("Segmentation fault (core dumped)\n");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().line == 1);
    CHECK(reply.error().message.find("not a gpudoctor helper reply") != std::string::npos);
  }
  SECTION("empty") {
    auto reply = parse_helper_reply("");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message == "empty helper reply: no header line");
  }
  SECTION("wrong header key") {
    auto reply = parse_helper_reply("hello\t1\nend\tok\n");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().line == 1);
  }
  SECTION("a line without a tab") {
    auto reply = parse_helper_reply("gpudoctor-helper\t1\nstage\tcuInit\nbinary junk\n");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().line == 3);
    CHECK(reply.error().describe() ==
          "helper reply:3: malformed line (expected key<TAB>value): 'binary junk'");
  }
  SECTION("a bad escape") {
    auto reply = parse_helper_reply("gpudoctor-helper\t1\ncuda.dlerror\tbad \\q\n");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().line == 2);
  }
  SECTION("a number that is not one") {
    auto reply = parse_helper_reply("gpudoctor-helper\t1\ncuda.init.result\tthirty-four\n");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().line == 2);
    CHECK(reply.error().message ==
          "malformed line: cuda.init.result: expected an integer, got 'thirty-four'");
  }
  SECTION("dlopen neither ok nor fail") {
    auto reply = parse_helper_reply("gpudoctor-helper\t1\ncuda.dlopen\tmaybe\n");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().line == 2);
  }
}

TEST_CASE("helper reply: protocol versions", "[probes][helper_reply]") {
  CHECK(parse_helper_reply("gpudoctor-helper\t1.3\nend\tok\n"));  // minor bumps are compatible
  auto newer = parse_helper_reply("gpudoctor-helper\t2\nend\tok\n");
  REQUIRE_FALSE(newer);
  CHECK(newer.error().line == 1);
  CHECK(newer.error().message == "unsupported helper protocol version 2 (this gpudoctor reads version 1)");
  auto bad = parse_helper_reply("gpudoctor-helper\tv1\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "bad helper protocol version 'v1'");
}

TEST_CASE("helper reply: escapes, unknown keys, bounds, failures", "[probes][helper_reply]") {
  auto reply = parse_helper_reply(
      "gpudoctor-helper\t1\n"
      "cuda.dlopen\tfail\n"
      "cuda.dlerror\tline one\\nline\\ttwo \\\\ end\n"
      "cuda.future_key\twhatever\n"           // newer helper: ignored
      "cuda.device.0.future.result\tnot-a-number\n"
      "cuda.device.1025.name\ttoo far\n"      // beyond the bound: ignored
      "cuda.device.3.name\tthird\n"
      "cuda.device.1.name\tfirst\n"
      "cuda.device.1.uuid.result\t-1\n"
      "cuda.device.1.uuid.error\tmissing symbol cuDeviceGetUuid_v2\n"
      "cuda.device.3.context.result\t802\n"
      "cuda.device.3.context.name\tCUDA_ERROR_SYSTEM_NOT_READY\n"
      "nvml.init.result\t-1\n"
      "nvml.init.error\tmissing symbol nvmlInit_v2\n"
      "nvml.device.2.result\t15\n"
      "end\tok\n"
      "cuda.device.0.name\tafter the end\n");
  REQUIRE(reply);
  CHECK(reply->cuda_dlopen_ok == false);
  CHECK(reply->cuda_dlerror == "line one\nline\ttwo \\ end");
  REQUIRE(reply->cuda_devices.size() == 3);  // 0 (the future key), 1, 3; sorted
  CHECK(reply->cuda_devices[0].index == 0);
  CHECK_FALSE(reply->cuda_devices[0].name.has_value());
  CHECK(reply->cuda_devices[1].name == "first");
  CHECK(reply->cuda_devices[2].index == 3);
  CHECK(reply->cuda_devices[2].context.result == 802);
  CHECK(reply->cuda_devices[2].context.name == "CUDA_ERROR_SYSTEM_NOT_READY");
  REQUIRE(reply->failed_values.contains("cuda.device.1.uuid"));
  CHECK(reply->failed_values.at("cuda.device.1.uuid").result == -1);
  CHECK(reply->failed_values.at("cuda.device.1.uuid").error == "missing symbol cuDeviceGetUuid_v2");
  CHECK(reply->failed_values.at("nvml.device.2").result == 15);
  CHECK_FALSE(reply->failed_values.contains("cuda.device.0.future"));
  CHECK(reply->nvml_init.result == -1);
  CHECK(reply->nvml_init.error == "missing symbol nvmlInit_v2");
}

namespace {

// Protocol 1.1, as the threaded helper writes it on two GPUs: GPU 0 proven, GPU 1 stuck in its
// context; NVML's thread interleaved; lines after `end` (a thread that woke up late) ignored.
constexpr std::string_view k_threaded =
    "gpudoctor-helper\t1.1\n"
    "stage\tcuInit\n"
    "stage.at_us\t1700\n"
    "cuda.init.result\t0\n"
    "nvml.stage\tdlopen-nvml\n"
    "nvml.stage.at_us\t101000\n"
    "cuda.device_count\t2\n"
    "stage\tdevices\n"
    "stage.at_us\t101500\n"
    "cuda.device.1.stage\tcontext\n"
    "cuda.device.1.stage.at_us\t101600\n"
    "cuda.device.0.stage\tcontext\n"
    "cuda.device.0.stage.at_us\t101650\n"
    "nvml.stage\tnvmlInit\n"
    "nvml.stage.at_us\t101700\n"
    "cuda.device.0.context.result\t0\n"
    "cuda.device.0.alloc.result\t0\n"
    "cuda.device.0.stage\tmodule\n"
    "cuda.device.0.stage.at_us\t230000\n"
    "cuda.device.0.module.duration_us\t14200\n"
    "cuda.device.0.module.result\t0\n"
    "cuda.device.0.module.jit_us\t13900\n"
    "cuda.device.0.module.log\tptxas info    : 0 bytes gmem\n"
    "cuda.device.0.launch.result\t0\n"
    "cuda.device.0.sync.result\t0\n"
    "cuda.device.0.sync.duration_us\t80\n"
    "cuda.device.0.copy.result\t0\n"
    "cuda.device.0.check\twrong\n"
    "cuda.device.0.check.index\t17\n"
    "cuda.device.0.check.value\t0xe09d14c1\n"
    "cuda.device.0.check.expected\t0xe09c14c1\n"
    "cuda.device.0.stage\tdone\n"
    "cuda.device.0.stage.at_us\t244500\n"
    "nvml.crashed\tSIGSEGV in nvmlInit\n"
    "cuda.devices_not_started\t3\n"
    "cuda.device.1.stuck\tcontext\n"
    "stage\tdone\n"
    "stage.at_us\t27000000\n"
    "end\tok\n"
    "cuda.device.1.context.result\t0\n";

}  // namespace

TEST_CASE("helper reply 1.1: threads, the kernel proof, stuck and crashed work", "[probes][helper_reply]") {
  auto reply = parse_helper_reply(k_threaded);
  REQUIRE(reply);
  CHECK(reply->protocol_version == 1);
  CHECK(reply->protocol_minor == 1);
  CHECK(reply->complete);
  CHECK(reply->last_stage == "done");
  REQUIRE(reply->cuda_devices.size() == 2);
  const gd::HelperCudaDevice& proven = reply->cuda_devices[0];
  CHECK(proven.module.result == 0);
  CHECK(proven.module_duration_us == 14200);
  CHECK(proven.module_jit_us == 13900);
  CHECK(proven.module_log == "ptxas info    : 0 bytes gmem");
  CHECK(proven.sync.result == 0);
  CHECK(proven.sync_duration_us == 80);
  CHECK(proven.check == "wrong");
  CHECK(proven.check_index == 17);
  CHECK(proven.check_value == "0xe09d14c1");
  CHECK(proven.check_expected == "0xe09c14c1");
  CHECK(proven.steps.last == "done");
  REQUIRE(proven.steps.starts.size() == 3);
  CHECK(proven.steps.starts[1] == std::pair<std::string, std::int64_t>{"module", 230000});
  const gd::HelperCudaDevice& stuck = reply->cuda_devices[1];
  CHECK(stuck.stuck == "context");
  CHECK(stuck.steps.last == "context");
  CHECK_FALSE(stuck.context.result.has_value());  // the line after `end` is not part of the reply
  CHECK(reply->cuda_devices_not_started == 3);
  CHECK(reply->nvml_crashed == "SIGSEGV in nvmlInit");
  CHECK(reply->nvml_steps.last == "nvmlInit");
  // The main thread's steps stay the helper's timeline; the GPUs' and NVML's are their own.
  REQUIRE(reply->stage_starts.size() == 3);
  CHECK(reply->stage_starts[1].first == "devices");
}

TEST_CASE("helper reply 1.0: no minor version, no kernel keys", "[probes][helper_reply]") {
  auto reply = parse_helper_reply(k_healthy_h200);
  REQUIRE(reply);
  CHECK(reply->protocol_minor == 0);
  REQUIRE(reply->cuda_devices.size() == 1);
  CHECK_FALSE(reply->cuda_devices[0].module.result.has_value());
  CHECK_FALSE(reply->cuda_devices[0].check.has_value());
}

}  // namespace GD_UNITY_ID
