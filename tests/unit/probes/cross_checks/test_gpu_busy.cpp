// A GPU whose context fails is broken only when no other process explains the failure (issue 23):
// out of memory (2) with another process on the GPU, or refused (46) in an exclusive mode with
// another process on it, is a busy GPU of a shared node; everything else stays a fault.

#include <catch2/catch.hpp>

#include "fact_access.hpp"
#include "core/fact_key.hpp"
#include "probes/cross_checks/gpu_busy.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::list_of;
using gd::test::state_of;

namespace {

/// One H200 seen by CUDA and NVML on the same bus, whose context answered `code`.
FactSet one_gpu(std::int64_t code, std::int64_t other_processes, const std::string& mode = "Default") {
  FactSet facts;
  facts.set("cuda.device.0.pci_bus_id"_fact, std::string("0000:18:00.0"));
  facts.set("cuda.device.0.uuid"_fact, std::string("GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"));
  facts.set("cuda.device.0.context.result"_fact, code);
  facts.set("cuda.context.failed_count"_fact, std::int64_t{code != 0 ? 1 : 0});
  facts.set("cuda.context.failures"_fact,
            code == 0 ? std::vector<std::string>{} : std::vector<std::string>{"0: context " + std::to_string(code) + " X"});
  facts.set("nvml.device.0.pci_bus_id"_fact, std::string("00000000:18:00.0"));
  facts.set("nvml.device.0.processes"_fact, other_processes);
  facts.set("nvml.device.0.compute_mode"_fact, mode);
  facts.set("nvml.device.0.memory.used_mib"_fact, std::int64_t{143753});
  facts.set("nvml.device.0.memory.total_mib"_fact, std::int64_t{143771});
  if (other_processes > 0) facts.set("nvml.device.0.process_list"_fact, std::vector<std::string>{"pid 4242 (python): 143000 MiB"});
  return facts;
}

void run(FactSet& facts) {
  gd::ReplayHost host(gd::Capture{});
  gd::probe_gpu_busy(host, gd::ProbeOptions{}, facts);
}

}  // namespace

TEST_CASE("gpu busy: out of memory while another process holds the memory", "[probes][gpu_busy]") {
  FactSet facts = one_gpu(2, 1);
  run(facts);
  CHECK(facts.get_int("cuda.context.busy_count"_fact) == 1);
  CHECK(facts.get_int("cuda.context.fault_count"_fact) == 0);
  CHECK(list_of(facts, "cuda.context.faults"_fact).empty());
  CHECK(facts.get_bool("cuda.device.0.busy"_fact) == true);
  CHECK(list_of(facts, "cuda.context.busy"_fact) ==
        std::vector<std::string>{"GPU 0 (0000:18:00.0): context 2 X; 143753 of 143771 MiB in use; held by pid 4242 (python): 143000 MiB"});
  CHECK(facts.get_string("cuda.context.busy_gpus"_fact) == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f");
}

TEST_CASE("gpu busy: refused in Exclusive_Process mode while another process holds the GPU", "[probes][gpu_busy]") {
  FactSet facts = one_gpu(46, 1, "Exclusive_Process");
  run(facts);
  CHECK(facts.get_int("cuda.context.busy_count"_fact) == 1);
  CHECK(list_of(facts, "cuda.context.busy"_fact).front().find("compute mode Exclusive_Process") != std::string::npos);
}

TEST_CASE("gpu busy: what no other process explains stays a fault", "[probes][gpu_busy]") {
  SECTION("out of memory with no process on the GPU") {
    FactSet facts = one_gpu(2, 0);
    run(facts);
    CHECK(facts.get_int("cuda.context.fault_count"_fact) == 1);
    CHECK(list_of(facts, "cuda.context.faults"_fact) == std::vector<std::string>{"0: context 2 X"});
    CHECK(facts.get_bool("cuda.device.0.busy"_fact) == false);
    CHECK(state_of(facts, "cuda.context.busy_gpus"_fact) == FactState::absent);
  }
  SECTION("46 in the Default mode (a GSP timeout leaves it too), with a process on the GPU") {
    FactSet facts = one_gpu(46, 1, "Default");
    run(facts);
    CHECK(facts.get_int("cuda.context.fault_count"_fact) == 1);
  }
  SECTION("999 with a process on the GPU") {
    FactSet facts = one_gpu(999, 1, "Exclusive_Process");
    run(facts);
    CHECK(facts.get_int("cuda.context.fault_count"_fact) == 1);
  }
  SECTION("a listed process that holds little, with most of the memory free (an MPS server, the helper itself)") {
    FactSet facts = one_gpu(2, 1);
    facts.set("nvml.device.0.memory.used_mib"_fact, std::int64_t{900});
    run(facts);
    CHECK(facts.get_int("cuda.context.fault_count"_fact) == 1);
    CHECK(facts.get_int("cuda.context.busy_count"_fact) == 0);
  }
}

TEST_CASE("gpu busy: out of memory where NVML could not list the processes is undecided, never a node fault",
          "[probes][gpu_busy]") {
  SECTION("the process query failed") {
    FactSet facts = one_gpu(2, 0);
    facts.set_unknown("nvml.device.0.processes"_fact, "NVML returned 999");
    run(facts);
    CHECK(state_of(facts, "cuda.context.fault_count"_fact) == FactState::unknown);
    CHECK(state_of(facts, "cuda.device.0.busy"_fact) == FactState::unknown);
    CHECK(facts.get_int("cuda.context.busy_count"_fact) == 0);
  }
  SECTION("NVML did not list the GPU at all (not loaded)") {
    FactSet facts = one_gpu(2, 0);
    facts.set_absent("nvml.device.0.pci_bus_id"_fact);
    run(facts);
    CHECK(state_of(facts, "cuda.context.fault_count"_fact) == FactState::unknown);
  }
  SECTION("a 999 there is still a fault") {
    FactSet facts = one_gpu(999, 0);
    facts.set_absent("nvml.device.0.pci_bus_id"_fact);
    run(facts);
    CHECK(facts.get_int("cuda.context.fault_count"_fact) == 1);
  }
}

TEST_CASE("gpu busy: a context that worked is not busy; no CUDA run leaves it unknown", "[probes][gpu_busy]") {
  SECTION("healthy") {
    FactSet facts = one_gpu(0, 1);
    run(facts);
    CHECK(facts.get_int("cuda.context.busy_count"_fact) == 0);
    CHECK(facts.get_int("cuda.context.fault_count"_fact) == 0);
    CHECK(facts.get_bool("cuda.device.0.busy"_fact) == false);
  }
  SECTION("--no-cuda") {
    FactSet facts;
    facts.set_unknown("cuda.context.failed_count"_fact, "not run: --no-cuda");
    run(facts);
    CHECK(state_of(facts, "cuda.context.busy_count"_fact) == FactState::unknown);
    CHECK(state_of(facts, "cuda.context.fault_count"_fact) == FactState::unknown);
  }
}

}  // namespace GD_UNITY_ID
