// cuda.proof.every_pci_gpu: the fact the hardware rules' confirmations rest on (issue 18). A true
// here silences a rule about a GPU the driver cannot run, so it must be true only when CUDA ran a
// kernel on as many GPUs as the PCI bus holds.

#include <catch2/catch.hpp>

#include "probes/cross_checks/proof_coverage.hpp"
#include "sys/replay_host.hpp"

using gd::FactSet;
using gd::FactState;

namespace {

constexpr std::string_view k_fact = "cuda.proof.every_pci_gpu";

FactSet cuda_ran(std::int64_t init, std::int64_t proven, std::int64_t on_bus) {
  FactSet facts;
  facts.set("kmod.nvidia.loaded", true);
  facts.set("cuda.init.result", init);
  if (init == 0) facts.set("cuda.kernel.proven_count", proven);
  facts.set("pci.nvidia_gpu_count", on_bus);
  return facts;
}

const gd::Fact& run(FactSet& facts) {
  gd::ReplayHost host(gd::Capture{});
  gd::probe_proof_coverage(host, gd::ProbeOptions{}, facts);
  const gd::Fact* fact = facts.find(k_fact);
  REQUIRE(fact != nullptr);
  return *fact;
}

}  // namespace

TEST_CASE("proof coverage: a kernel proven on every GPU of the bus", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 8, 8);
  const gd::Fact& fact = run(facts);
  REQUIRE(fact.state == FactState::present);
  CHECK(facts.get_bool(k_fact) == true);
}

TEST_CASE("proof coverage: one GPU of two not proven", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 1, 2);  // a V100 beside an A100 on a driver that dropped Volta
  run(facts);
  CHECK(facts.get_bool(k_fact) == false);
}

TEST_CASE("proof coverage: cuInit failed", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(100, 0, 1);
  run(facts);
  CHECK(facts.get_bool(k_fact) == false);
}

TEST_CASE("proof coverage: GPUs that this run could not try leave it unknown, not false", "[probes][proof_coverage]") {
  // A shared node: what a job was not given says nothing against those GPUs (issue 23).
  FactSet facts = cuda_ran(0, 1, 8);
  SECTION("CUDA_VISIBLE_DEVICES names one GPU of eight") {
    facts.set("env.cuda_visible_devices", std::string("0"));
    const gd::Fact& fact = run(facts);
    CHECK(fact.state == FactState::unknown);
    CHECK(fact.reason.find("CUDA_VISIBLE_DEVICES=0") != std::string::npos);
  }
  SECTION("MIG is on: one CUDA process uses one MIG device") {
    facts.set("nvml.device.3.mig.enabled", true);
    CHECK(run(facts).state == FactState::unknown);
  }
  SECTION("another job holds some of them") {
    facts.set("cuda.context.busy_count", std::int64_t{7});
    CHECK(run(facts).state == FactState::unknown);
  }
  SECTION("a container given one of the eight") {
    facts.set("container.in_container", true);
    facts.set("dev.gpu_count", std::int64_t{1});
    CHECK(run(facts).reason.find("this container was given 1") != std::string::npos);
  }
  SECTION("on the host, every GPU offered and one proven: false") {
    facts.set("container.in_container", false);
    facts.set("dev.gpu_count", std::int64_t{8});
    run(facts);
    CHECK(facts.get_bool(k_fact) == false);
  }
}

TEST_CASE("proof coverage: CUDA_VISIBLE_DEVICES naming every GPU proven is full coverage", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 1, 1);
  facts.set("env.cuda_visible_devices", std::string("0"));
  run(facts);
  CHECK(facts.get_bool(k_fact) == true);
}

TEST_CASE("proof coverage: no NVIDIA module, CUDA not run", "[probes][proof_coverage]") {
  FactSet facts;
  facts.set("kmod.nvidia.loaded", false);
  facts.set_unknown("cuda.init.result", "not run: --no-cuda");
  facts.set("pci.nvidia_gpu_count", std::int64_t{1});
  run(facts);
  CHECK(facts.get_bool(k_fact) == false);
}

TEST_CASE("proof coverage: CUDA not run is unknown, with its reason", "[probes][proof_coverage]") {
  FactSet facts;
  facts.set("kmod.nvidia.loaded", true);
  facts.set_unknown("cuda.init.result", "not run: --no-cuda");
  facts.set("pci.nvidia_gpu_count", std::int64_t{1});
  const gd::Fact& fact = run(facts);
  CHECK(fact.state == FactState::unknown);
  CHECK(fact.reason == "not run: --no-cuda");
}

TEST_CASE("proof coverage: no GPU on the bus proves nothing", "[probes][proof_coverage]") {
  FactSet facts = cuda_ran(0, 0, 0);
  run(facts);
  CHECK(facts.get_bool(k_fact) == false);
}
