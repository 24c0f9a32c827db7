// What the helper proved on each GPU, as facts: the kernel proof's sums that the rules test, the
// GPUs named as nvidia-smi -i takes them, and the honest "unknown" of replies that cannot tell.
#include "core/fact_key.hpp"
#include "probes/cuda/cuda_devices.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fact_access.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::test::list_of;
using gd::test::reason_of;
using gd::test::state_of;

namespace {

std::string device_lines(int index, const std::string& tail) {
  std::string p = "cuda.device." + std::to_string(index) + ".";
  return p + "uuid\tGPU-0000000" + std::to_string(index) + "-0000-0000-0000-000000000000\n" + p +
         "pci_bus_id\t0000:1" + std::to_string(index) + ":00.0\n" + p + "context.result\t0\n" + p + "alloc.result\t0\n" +
         tail;
}

std::string proven(int index) {
  std::string p = "cuda.device." + std::to_string(index) + ".";
  return device_lines(index, p + "module.result\t0\n" + p + "module.duration_us\t14600\n" + p + "launch.result\t0\n" + p +
                                 "sync.result\t0\n" + p + "copy.result\t0\n" + p + "check\tok\n");
}

gd::FactSet facts_of(const std::string& body, const std::string& version = "1.1", bool complete = true) {
  std::string text = "gpudoctor-helper\t" + version + "\ncuda.init.result\t0\n" + body + (complete ? "end\tok\n" : "");
  auto reply = gd::parse_helper_reply(text);
  REQUIRE(reply);
  gd::FactSet facts;
  gd::record_cuda_devices(*reply, facts, "helper hung in devices and was killed");
  return facts;
}

}  // namespace

TEST_CASE("cuda devices: every GPU proven", "[probes][cuda_devices]") {
  gd::FactSet facts = facts_of(proven(0) + proven(1));
  CHECK(facts.get_int("cuda.kernel.proven_count"_fact) == 2);
  CHECK(list_of(facts, "cuda.kernel.launch_failures"_fact).empty());
  CHECK(list_of(facts, "cuda.kernel.wrong_results"_fact).empty());
  CHECK(facts.get_int("cuda.devices.stuck_count"_fact) == 0);
  CHECK(facts.get_int("cuda.device.1.module.jit_ms"_fact) == 15);
  CHECK(facts.get_string("cuda.device.1.check"_fact) == "ok");
  CHECK(state_of(facts, "cuda.kernel.failed_gpus"_fact) == gd::FactState::absent);
}

TEST_CASE("cuda devices: a missing JIT compiler, a failing kernel, a wrong result, a stuck and a crashed GPU",
          "[probes][cuda_devices]") {
  std::string body = proven(0) +
                     device_lines(1, "cuda.device.1.module.result\t221\ncuda.device.1.module.name\tCUDA_ERROR_JIT_COMPILER_NOT_FOUND\n") +
                     device_lines(2, "cuda.device.2.module.result\t0\ncuda.device.2.launch.result\t0\n"
                                     "cuda.device.2.sync.result\t719\n") +
                     device_lines(3, "cuda.device.3.module.result\t0\ncuda.device.3.launch.result\t0\ncuda.device.3.sync.result\t0\n"
                                     "cuda.device.3.copy.result\t0\ncuda.device.3.check\twrong\ncuda.device.3.check.index\t5\n"
                                     "cuda.device.3.check.value\t0x1\ncuda.device.3.check.expected\t0x2\n") +
                     "cuda.device.4.pci_bus_id\t0000:14:00.0\ncuda.device.4.stuck\tcontext\n" +
                     device_lines(5, "cuda.device.5.module.result\t0\ncuda.device.5.crashed\tSIGSEGV in launch\n");
  gd::FactSet facts = facts_of(body);
  CHECK(facts.get_int("cuda.kernel.proven_count"_fact) == 1);
  CHECK(list_of(facts, "cuda.kernel.module_failures"_fact) ==
        std::vector<std::string>{"GPU 1 (0000:11:00.0): cuModuleLoadDataEx 221 CUDA_ERROR_JIT_COMPILER_NOT_FOUND"});
  CHECK(list_of(facts, "cuda.kernel.module_result_codes"_fact) == std::vector<std::string>{"221"});
  // The name comes from cuda.h when the driver gave none.
  CHECK(list_of(facts, "cuda.kernel.launch_failures"_fact) ==
        std::vector<std::string>{"GPU 2 (0000:12:00.0): cuCtxSynchronize 719 CUDA_ERROR_LAUNCH_FAILED",
                                 "GPU 5 (0000:15:00.0): the driver crashed (SIGSEGV in launch)"});
  CHECK(list_of(facts, "cuda.kernel.launch_result_codes"_fact) == std::vector<std::string>{"719"});
  CHECK(list_of(facts, "cuda.kernel.wrong_results"_fact) ==
        std::vector<std::string>{"GPU 3 (0000:13:00.0): element 5 is 0x1 instead of 0x2"});
  CHECK(list_of(facts, "cuda.devices.stuck"_fact) == std::vector<std::string>{"GPU 4 (0000:14:00.0): stuck in context"});
  CHECK(facts.get_int("cuda.devices.stuck_count"_fact) == 1);
  CHECK(facts.get_string("cuda.kernel.failed_gpus"_fact) ==
        "GPU-00000001-0000-0000-0000-000000000000,GPU-00000002-0000-0000-0000-000000000000,"
        "GPU-00000005-0000-0000-0000-000000000000");
  CHECK(facts.get_string("cuda.kernel.wrong_gpus"_fact) == "GPU-00000003-0000-0000-0000-000000000000");
  CHECK(facts.get_string("cuda.devices.stuck_gpus"_fact) == "0000:14:00.0");  // no UUID read: the bus id
  CHECK(facts.get_int("cuda.device.2.kernel.result"_fact) == 719);
  CHECK(facts.get_string("cuda.device.3.check.detail"_fact) == "element 5 is 0x1 instead of 0x2");
}

TEST_CASE("cuda devices: replies that cannot tell leave the kernel sums unknown", "[probes][cuda_devices]") {
  SECTION("a capture of the protocol 1.0 helper, which ran no kernel") {
    gd::FactSet facts = facts_of(device_lines(0, ""), "1");
    CHECK(state_of(facts, "cuda.kernel.proven_count"_fact) == gd::FactState::unknown);
    CHECK(reason_of(facts, "cuda.kernel.wrong_results"_fact).find("protocol 1.0") != std::string::npos);
    CHECK(facts.get_int("cuda.context.failed_count"_fact) == 0);  // contexts were proven by 1.0 too
  }
  SECTION("a helper killed before its end line") {
    gd::FactSet facts = facts_of(proven(0), "1.1", false);
    CHECK(state_of(facts, "cuda.kernel.launch_failures"_fact) == gd::FactState::unknown);
    CHECK(reason_of(facts, "cuda.devices.stuck"_fact) == "helper hung in devices and was killed");
  }
}

TEST_CASE("cuda devices: GPUs above the helper's bound are counted", "[probes][cuda_devices]") {
  gd::FactSet facts = facts_of(proven(0) + "cuda.devices_not_started\t6\n");
  CHECK(facts.get_int("cuda.devices.not_started"_fact) == 6);
}

}  // namespace GD_UNITY_ID
