// Live tests: run the real helper ELF through this host's glibc loader against the fake
// libcuda/NVML (tests/fakes), configured per test through FAKE_* environment variables.
#include "probes/cuda/helper_reply.hpp"
#include "sys/helper_exec.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "host_tools.hpp"

#include "helper_run.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using Status = gd::HelperOutcome::Status;
using gd::test::fake_request;
using gd::test::helper_elf;
using gd::test::parsed;
using gd::test::run;
using gd::test::ScopedEnv;

TEST_CASE("helper exec: healthy fake with two GPUs", "[sys][helper_exec]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.exit_code == 0);
  CHECK_FALSE(outcome.loader.empty());
  CHECK_FALSE(outcome.output_cut);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  CHECK(reply.cuda_path->ends_with("/libcuda.so.1"));
  CHECK(reply.cuda_driver_version == 13000);
  CHECK(reply.cuda_init.result == 0);
  CHECK(reply.cuda_device_count == 2);
  REQUIRE(reply.cuda_devices.size() == 2);
  CHECK(reply.cuda_devices[1].name == "NVIDIA H200");
  CHECK(reply.cuda_devices[1].uuid == "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
  CHECK(reply.cuda_devices[1].pci_bus_id == "0000:19:00.0");
  CHECK(reply.cuda_devices[1].cc_major == 9);
  CHECK(reply.cuda_devices[1].context.result == 0);
  CHECK(reply.cuda_devices[1].alloc.result == 0);
  CHECK(reply.nvml_init.result == 0);
  CHECK(reply.nvml_driver_version == "580.159.04");
  REQUIRE(reply.nvml_devices.size() == 2);
  CHECK(reply.nvml_devices[1].uuid == reply.cuda_devices[1].uuid);
  CHECK(reply.nvml_devices[1].pci_bus_id == "00000000:19:00.0");
}

TEST_CASE("helper exec: cuInit 100 skips devices but still asks NVML", "[sys][helper_exec]") {
  ScopedEnv init("FAKE_CUDA_INIT_RESULT", "100");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  CHECK(reply.cuda_init.result == 100);
  CHECK(reply.cuda_init.name == "CUDA_ERROR_NO_DEVICE");
  CHECK(reply.cuda_init.text == "no CUDA-capable device is detected");
  CHECK_FALSE(reply.cuda_device_count.has_value());
  CHECK(reply.cuda_devices.empty());
  CHECK(reply.nvml_device_count == 1);
}

TEST_CASE("helper exec: per-device context failure", "[sys][helper_exec]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  ScopedEnv context("FAKE_CUDA_CONTEXT_RESULT_1", "802");
  gd::HelperReply reply = parsed(run(fake_request()));
  REQUIRE(reply.cuda_devices.size() == 2);
  CHECK(reply.cuda_devices[0].context.result == 0);
  CHECK(reply.cuda_devices[1].context.result == 802);
  CHECK(reply.cuda_devices[1].context.name == "CUDA_ERROR_SYSTEM_NOT_READY");
  CHECK_FALSE(reply.cuda_devices[1].alloc.result.has_value());
}

TEST_CASE("helper exec: a hang in cuInit times out", "[sys][helper_exec]") {
  ScopedEnv hang("FAKE_CUDA_HANG_IN", "cuInit");
  gd::HelperRequest request = fake_request();
  request.timeout_ms = 1000;
  gd::HelperOutcome outcome = run(request);
  REQUIRE(outcome.status == Status::timed_out);
  CHECK(outcome.duration_ms >= 1000);
  // The contract is the timeout plus 2 s at most; the slack is for loaded CI machines.
  CHECK(outcome.duration_ms < 1000 + 2000 + 1500);
  CHECK(outcome.error.empty());
  gd::HelperReply reply = parsed(outcome);
  CHECK_FALSE(reply.complete);
  CHECK(reply.last_stage == "cuInit");
  CHECK(reply.cuda_driver_version == 13000);
}

TEST_CASE("helper exec: a crash in cuInit is a SIGSEGV", "[sys][helper_exec]") {
  ScopedEnv crash("FAKE_CUDA_CRASH_IN", "cuInit");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::crashed);
  CHECK(outcome.signal == SIGSEGV);
  gd::HelperReply reply = parsed(outcome);
  CHECK_FALSE(reply.complete);
  CHECK(reply.last_stage == "cuInit");
}

TEST_CASE("helper exec: libcuda's stdout is kept apart from the reply", "[sys][helper_exec]") {
  ScopedEnv text("FAKE_CUDA_STDOUT", "hello from libcuda\tend");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.out == "hello from libcuda\tend\n");
  CHECK(outcome.reply.find("hello") == std::string::npos);
  CHECK(parsed(outcome).complete);
}

TEST_CASE("helper exec: a stdout flood is cut, not hung on", "[sys][helper_exec]") {
  ScopedEnv flood("FAKE_CUDA_FLOOD_STDOUT", "8000000");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.output_cut);
  CHECK(outcome.out.size() == 64 * 1024);
  CHECK(outcome.out.find_first_not_of('x') == std::string::npos);
  CHECK(parsed(outcome).complete);
}

TEST_CASE("helper exec: clean_env drops CUDA_VISIBLE_DEVICES and LD_PRELOAD", "[sys][helper_exec]") {
  ScopedEnv echo("FAKE_CUDA_ECHO_ENV", "CUDA_VISIBLE_DEVICES");
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", "GPU-not-there");
  ScopedEnv preload("LD_PRELOAD", "/nonexistent/gpudoctor-test-preload.so");
  gd::HelperRequest request = fake_request();

  gd::HelperOutcome user = run(request);
  REQUIRE(user.status == Status::finished);
  CHECK(user.out == "CUDA_VISIBLE_DEVICES=GPU-not-there\n");
  CHECK(user.err.find("gpudoctor-test-preload.so") != std::string::npos);  // ld.so complains

  request.clean_env = true;
  gd::HelperOutcome clean = run(request);
  REQUIRE(clean.status == Status::finished);
  CHECK(clean.out == "CUDA_VISIBLE_DEVICES unset\n");
  CHECK(clean.err.find("gpudoctor-test-preload.so") == std::string::npos);
}

TEST_CASE("helper exec: a library without the NVML symbols", "[sys][helper_exec]") {
  gd::HelperRequest request = fake_request();
  request.libnvml_path = request.libcuda_path;  // loads, but has no nvmlInit_v2
  gd::HelperReply reply = parsed(run(request));
  CHECK(reply.complete);
  CHECK(reply.nvml_dlopen_ok == true);
  CHECK(reply.nvml_init.result == -1);
  CHECK(reply.nvml_init.error == "missing symbol nvmlInit_v2");
}

TEST_CASE("helper exec: a libcuda that cannot be opened", "[sys][helper_exec]") {
  gd::HelperRequest request = fake_request();
  request.libcuda_path = "/nonexistent/libcuda.so.1";
  gd::HelperReply reply = parsed(run(request));
  CHECK(reply.complete);
  CHECK(reply.cuda_dlopen_ok == false);
  CHECK(reply.cuda_dlerror->find("/nonexistent/libcuda.so.1") != std::string::npos);
  CHECK(reply.nvml_init.result == 0);
}

// Run by ctest's unit.needs-cuda-stub entry, a skip with its reason where the toolkit is absent.
TEST_CASE("helper exec: NVIDIA's stub libcuda answers 34", "[sys][helper_exec][needs-cuda-stub]") {
  gd::HelperRequest request = fake_request();
  request.libcuda_path = gd::test::k_cuda_stub_libcuda;
  gd::HelperReply reply = parsed(run(request));
  CHECK(reply.complete);
  CHECK(reply.cuda_init.result == 34);  // CUDA_ERROR_STUB_LIBRARY
  CHECK(reply.cuda_path->find("stubs") != std::string::npos);
}

TEST_CASE("helper exec: images the loader cannot run", "[sys][helper_exec]") {
  SECTION("not an ELF at all: no loader is chosen") {
    const std::vector<unsigned char> junk(100, 'x');
    gd::HelperOutcome outcome = gd::exec_cuda_helper(junk, fake_request());
    CHECK(outcome.status == Status::no_loader);
    CHECK_FALSE(outcome.error.empty());
    CHECK(gd::find_glibc_loader(junk).empty());
  }
  SECTION("an ELF for another machine: the loader exits 127") {
    std::vector<unsigned char> foreign = helper_elf();
    foreign.at(18) = 0x34;  // e_machine EM_SPARCV9: PT_INTERP still names this host's loader
    foreign.at(19) = 0;
    gd::HelperOutcome outcome = gd::exec_cuda_helper(foreign, fake_request());
    INFO("error: " << outcome.error);
    CHECK(outcome.status == Status::exec_failed);
    CHECK(outcome.error.starts_with("the loader could not start the helper (exit 127)"));
  }
}

TEST_CASE("helper exec: the loader is the helper's PT_INTERP", "[sys][helper_exec]") {
  std::string loader = gd::find_glibc_loader(helper_elf());
  REQUIRE_FALSE(loader.empty());
  CHECK(loader.find("ld-linux") != std::string::npos);
}

}  // namespace GD_UNITY_ID
