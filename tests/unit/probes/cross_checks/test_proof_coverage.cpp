// cuda.proof.every_pci_gpu: the fact the hardware rules' confirmations rest on (issue 18). A true
// here silences a rule about a GPU the driver cannot run, so it must be true only when CUDA ran a
// kernel on as many GPUs as the PCI bus holds.

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/cross_checks/proof_coverage.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;

namespace {

constexpr std::string_view k_fact = "cuda.proof.every_pci_gpu"_fact;

FactSet cuda_ran(std::int64_t init, std::int64_t proven, std::int64_t on_bus) {
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, true);
  facts.set("cuda.init.result"_fact, init);
  if (init == 0) facts.set("cuda.kernel.proven_count"_fact, proven);
  facts.set("pci.nvidia_gpu_count"_fact, on_bus);
  return facts;
}

const gd::Fact& run(FactSet& facts) {
  gd::ReplayHost host(gd::Capture{});
  gd::probe_proof_coverage(host, gd::ProbeOptions{}, facts);
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(k_fact));
  REQUIRE(fact != nullptr);
  return *fact;
}

}  // namespace

TEST_CASE("proof coverage: a kernel proven on every GPU of the bus", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 8, 8);
  const gd::Fact& fact = run(facts);
  REQUIRE(fact.state == FactState::present);
  CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == true);
}

TEST_CASE("proof coverage: one GPU of two not proven", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 1, 2);  // a V100 beside an A100 on a driver that dropped Volta
  run(facts);
  CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
}

TEST_CASE("proof coverage: cuInit failed", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(100, 0, 1);
  run(facts);
  CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
}

/// Eight GPUs on the bus (0000:1N:00.0), all listed by NVML; CUDA device 0 is GPU 0, proven.
FactSet eight_gpus_one_proven() {
  FactSet facts = cuda_ran(0, 1, 8);
  for (int n = 0; n < 8; ++n) {
    facts.set(gd::FactName::unchecked(fmt::format("pci.gpu.{}.bus_id", n)), fmt::format("0000:1{}:00.0", n));
    facts.set(gd::FactName::unchecked(fmt::format("nvml.device.{}.pci_bus_id", n)), fmt::format("00000000:1{}:00.0", n));
  }
  facts.set("cuda.device.0.pci_bus_id"_fact, std::string("0000:10:00.0"));
  facts.set("cuda.device.0.check"_fact, std::string("ok"));
  return facts;
}

TEST_CASE("proof coverage: GPUs that this run could not try leave it unknown, not false", "[probes][proof_coverage]") {
  // A shared node: what a job was not given says nothing against those GPUs (issue 23).
  FactSet facts = eight_gpus_one_proven();
  SECTION("CUDA_VISIBLE_DEVICES=0: NVML lists the other seven, CUDA was not given them") {
    facts.set("env.cuda_visible_devices"_fact, std::string("0"));
    const gd::Fact& fact = run(facts);
    CHECK(fact.state == FactState::unknown);
    CHECK(fact.reason.find("CUDA_VISIBLE_DEVICES=0") != std::string::npos);
  }
  SECTION("the other seven are in MIG mode") {
    for (int n = 1; n < 8; ++n) facts.set(gd::FactName::unchecked(fmt::format("nvml.device.{}.mig.enabled", n)), true);
    CHECK(run(facts).state == FactState::unknown);
  }
  SECTION("another job holds GPU 1, and CUDA_VISIBLE_DEVICES=0,1 hides the rest") {
    facts.set("env.cuda_visible_devices"_fact, std::string("0,1"));
    facts.set("cuda.device.1.pci_bus_id"_fact, std::string("0000:11:00.0"));
    facts.set("cuda.device.1.busy"_fact, true);
    CHECK(run(facts).reason.find("other processes hold some of them") != std::string::npos);
  }
}

TEST_CASE("proof coverage: an excuse for some GPUs never covers one the driver did not take", "[probes][proof_coverage]") {
  // The review of issue 23: a busy GPU, MIG elsewhere or CUDA_VISIBLE_DEVICES must not hide a GPU
  // that neither CUDA nor NVML lists (too new for the driver, on nouveau), nor one CUDA failed on.
  FactSet facts = eight_gpus_one_proven();
  facts.set("env.cuda_visible_devices"_fact, std::string("0"));
  SECTION("GPU 5 is not in NVML's list: the driver did not take it") {
    facts.set_absent("nvml.device.5.pci_bus_id"_fact);
    run(facts);
    CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
  }
  SECTION("a container given one of eight: NVML lists only that one") {
    for (int n = 1; n < 8; ++n) facts.set_absent(gd::FactName::unchecked(fmt::format("nvml.device.{}.pci_bus_id", n)));
    facts.set("container.in_container"_fact, true);
    run(facts);
    CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
  }
  SECTION("GPU 1 is busy but GPU 2's context failed with nothing to explain it") {
    facts.set("env.cuda_visible_devices"_fact, std::string("0,1,2"));
    facts.set("cuda.device.1.pci_bus_id"_fact, std::string("0000:11:00.0"));
    facts.set("cuda.device.1.busy"_fact, true);
    facts.set("cuda.device.2.pci_bus_id"_fact, std::string("0000:12:00.0"));
    facts.set("cuda.device.2.busy"_fact, false);
    run(facts);
    CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
  }
  SECTION("without CUDA_VISIBLE_DEVICES a GPU NVML lists but CUDA does not is no excuse") {
    facts.set_absent("env.cuda_visible_devices"_fact);
    run(facts);
    CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
  }
}

TEST_CASE("proof coverage: CUDA_VISIBLE_DEVICES naming every GPU proven is full coverage", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 1, 1);
  facts.set("env.cuda_visible_devices"_fact, std::string("0"));
  run(facts);
  CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == true);
}

TEST_CASE("proof coverage: no NVIDIA module, CUDA not run", "[probes][proof_coverage]") {
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, false);
  facts.set_unknown("cuda.init.result"_fact, "not run: --no-cuda");
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
  run(facts);
  CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
}

TEST_CASE("proof coverage: CUDA not run is unknown, with its reason", "[probes][proof_coverage]") {
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, true);
  facts.set_unknown("cuda.init.result"_fact, "not run: --no-cuda");
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
  const gd::Fact& fact = run(facts);
  CHECK(fact.state == FactState::unknown);
  CHECK(fact.reason == "not run: --no-cuda");
}

TEST_CASE("proof coverage: no GPU on the bus proves nothing", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 0, 0);
  run(facts);
  CHECK(facts.get_bool(gd::FactName::unchecked(k_fact)) == false);
}

}  // namespace GD_UNITY_ID
