// The helper proves every GPU at once, one thread each, down to a kernel whose result it checks
// (src/helper/cuda_part.c, cuda_device.c, tasks.c, kernel_proof.h): run through this host's
// loader against the fake libcuda, whose GPUs run the proof kernel on the host.
#include <catch2/catch.hpp>

#include <string>

#include "helper_run.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using Status = gd::HelperOutcome::Status;
using gd::test::fake_request;
using gd::test::parsed;
using gd::test::run;
using gd::test::ScopedEnv;

namespace {

const gd::HelperCudaDevice& device(const gd::HelperReply& reply, int index) {
  for (const gd::HelperCudaDevice& dev : reply.cuda_devices) {
    if (dev.index == index) return dev;
  }
  FAIL("no device " << index << " in the reply");
  return reply.cuda_devices.front();
}

void check_proven(const gd::HelperCudaDevice& dev) {
  INFO("GPU " << dev.index);
  CHECK(dev.context.result == 0);
  CHECK(dev.alloc.result == 0);
  CHECK(dev.module.result == 0);
  CHECK(dev.launch.result == 0);
  CHECK(dev.sync.result == 0);
  CHECK(dev.copy.result == 0);
  CHECK(dev.check == "ok");
  CHECK_FALSE(dev.stuck.has_value());
  CHECK_FALSE(dev.crashed.has_value());
  CHECK(dev.steps.last == "done");
}

}  // namespace

TEST_CASE("parallel proof: every GPU runs the kernel and gets it right", "[helper][parallel]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "4");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  CHECK(reply.protocol_minor == 4);  // 1.2: memory, processes, MIG devices; 1.3: NVLink, the pair proof; 1.4: the pair bandwidth, the fabric cluster
  REQUIRE(reply.cuda_devices.size() == 4);
  for (int i = 0; i < 4; ++i) check_proven(device(reply, i));
  CHECK(device(reply, 3).module_jit_us == 500);  // the fake reports CU_JIT_WALL_TIME 0.5 ms
  CHECK_FALSE(reply.cuda_devices_not_started.has_value());
  CHECK(reply.nvml_steps.last == "done");
}

TEST_CASE("parallel proof: one GPU stuck in its context hides none of the others", "[helper][parallel]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "8");
  ScopedEnv hang("FAKE_CUDA_HANG_IN", "cuDevicePrimaryCtxRetain");
  ScopedEnv only("FAKE_CUDA_FAULT_DEVICE", "2");
  gd::HelperRequest request = fake_request();
  request.timeout_ms = 3000;
  gd::HelperOutcome outcome = run(request);
  // The helper reports at its own deadline and completes: not killed at ours.
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.duration_ms < request.timeout_ms);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  REQUIRE(reply.cuda_devices.size() == 8);
  CHECK(device(reply, 2).stuck == "context");
  CHECK_FALSE(device(reply, 2).context.result.has_value());
  for (int i : {0, 1, 3, 4, 5, 6, 7}) check_proven(device(reply, i));
  CHECK(reply.nvml_device_count == 8);  // NVML's thread finished meanwhile
}

TEST_CASE("parallel proof: a driver crash in one GPU's launch is contained", "[helper][parallel]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "8");
  ScopedEnv crash("FAKE_CUDA_CRASH_IN", "cuLaunchKernel");
  ScopedEnv only("FAKE_CUDA_FAULT_DEVICE", "3");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  CHECK(device(reply, 3).crashed == "SIGSEGV in launch");
  CHECK_FALSE(device(reply, 3).launch.result.has_value());
  for (int i : {0, 1, 2, 4, 5, 6, 7}) check_proven(device(reply, i));
}

TEST_CASE("parallel proof: a missing JIT compiler, a failing kernel, a wrong result", "[helper][parallel]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "4");
  ScopedEnv jit("FAKE_CUDA_MODULE_RESULT_1", "221");
  ScopedEnv sync("FAKE_CUDA_SYNC_RESULT_2", "719");
  ScopedEnv wrong("FAKE_CUDA_WRONG_RESULT_3", "17");
  gd::HelperReply reply = parsed(run(fake_request()));
  REQUIRE(reply.complete);
  check_proven(device(reply, 0));
  const gd::HelperCudaDevice& no_jit = device(reply, 1);
  CHECK(no_jit.module.result == 221);
  CHECK(no_jit.module.name == "CUDA_ERROR_JIT_COMPILER_NOT_FOUND");
  CHECK(no_jit.module_log == "fake JIT: cannot compile the module (221)");
  CHECK_FALSE(no_jit.launch.result.has_value());
  const gd::HelperCudaDevice& failing = device(reply, 2);
  CHECK(failing.launch.result == 0);
  CHECK(failing.sync.result == 719);
  CHECK(failing.sync.name == "CUDA_ERROR_LAUNCH_FAILED");
  CHECK_FALSE(failing.check.has_value());
  const gd::HelperCudaDevice& corrupt = device(reply, 3);
  CHECK(corrupt.check == "wrong");
  CHECK(corrupt.check_index == 17);
  REQUIRE(corrupt.check_value.has_value());
  REQUIRE(corrupt.check_expected.has_value());
  CHECK(*corrupt.check_value != *corrupt.check_expected);
}

TEST_CASE("parallel proof: GPUs above the thread bound are named, not started", "[helper][parallel]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "70");
  gd::HelperReply reply = parsed(run(fake_request()));
  REQUIRE(reply.complete);
  CHECK(reply.cuda_device_count == 70);
  CHECK(reply.cuda_devices_not_started == 6);
  CHECK(reply.cuda_devices.size() == 64);
  check_proven(device(reply, 63));
}

TEST_CASE("parallel proof: the contexts of eight GPUs are made at the same time", "[helper][parallel]") {
  // Each context takes 500 ms: one after another they would take 4 s. Bounded generously; the
  // speed itself is measured in bench/, not here.
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "8");
  ScopedEnv delay("FAKE_CUDA_CONTEXT_DELAY_MS", "500");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.duration_ms < 2500);
  gd::HelperReply reply = parsed(outcome);
  for (int i = 0; i < 8; ++i) check_proven(device(reply, i));
}

TEST_CASE("parallel proof: NVML stuck or crashing in its thread leaves CUDA's results", "[helper][parallel]") {
  SECTION("stuck") {
    ScopedEnv hang("FAKE_NVML_HANG_IN", "nvmlInit_v2");
    gd::HelperRequest request = fake_request();
    request.timeout_ms = 2000;
    gd::HelperOutcome outcome = run(request);
    REQUIRE(outcome.status == Status::finished);
    gd::HelperReply reply = parsed(outcome);
    CHECK(reply.complete);
    CHECK(reply.nvml_stuck == "nvmlInit");
    check_proven(device(reply, 0));
  }
  SECTION("crashing") {
    ScopedEnv crash("FAKE_NVML_CRASH_IN", "nvmlDeviceGetCount_v2");
    gd::HelperOutcome outcome = run(fake_request());
    REQUIRE(outcome.status == Status::finished);
    gd::HelperReply reply = parsed(outcome);
    CHECK(reply.complete);
    REQUIRE(reply.nvml_crashed.has_value());
    CHECK(reply.nvml_crashed->starts_with("SIGSEGV in "));
    check_proven(device(reply, 0));
  }
}

TEST_CASE("parallel proof: started early, collected later", "[helper][parallel]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  gd::HelperRunHandle started = gd::start_cuda_helper(gd::test::helper_elf(), fake_request());
  REQUIRE(started);
  CHECK(gd::started_request(*started) == fake_request());
  gd::HelperOutcome outcome = gd::finish_cuda_helper(*started);
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  check_proven(device(reply, 1));
}

TEST_CASE("pair proof: every ordered pair copied, read back and checked beside the GPUs' proofs", "[helper][parallel][peer]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "4");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.peer_scope == "all");
  REQUIRE(reply.peer_pairs.size() == 12);
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    INFO(pair.source << " -> " << pair.destination);
    CHECK(pair.can_access == 1);
    CHECK(pair.enable.result == 0);
    CHECK(pair.copy.result == 0);
    CHECK(pair.readback.result == 0);
    CHECK(pair.check == "ok");
  }
  CHECK(reply.nvml_peer_pairs.size() == 12);
}

TEST_CASE("pair proof: a GPU stuck in its context holds none of the other pairs", "[helper][parallel][peer]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "4");
  ScopedEnv hang("FAKE_CUDA_HANG_IN", "cuDevicePrimaryCtxRetain");
  ScopedEnv only("FAKE_CUDA_FAULT_DEVICE", "2");
  gd::HelperRequest request = fake_request();
  request.timeout_ms = 3000;
  gd::HelperOutcome outcome = run(request);
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.duration_ms < request.timeout_ms);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  CHECK(device(reply, 2).stuck == "context");
  int proven = 0, waited_for_2 = 0;
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    INFO(pair.source << " -> " << pair.destination);
    if (pair.destination == 2) {
      REQUIRE(pair.not_tested.has_value());
      CHECK(pair.not_tested->starts_with("GPU 2: not ready by the deadline (still in context)"));
      ++waited_for_2;
    } else if (pair.source != 2) {
      CHECK(pair.check == "ok");
      ++proven;
    }
  }
  CHECK(proven == 6);
  CHECK(waited_for_2 == 3);
}

}  // namespace GD_UNITY_ID
