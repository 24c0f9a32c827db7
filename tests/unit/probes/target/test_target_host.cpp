// The host layers of a pre-flight (issue 18) are the target's: the facts the image's checks
// compare against come from --target-gpu and --target-driver, every other host-layer fact is
// unknown with the reason, and the driver's support of the GPU is judged by its first release.

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"
#include "probes/target/target_host.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactState;

namespace {

std::optional<std::vector<std::string>> list_of(const gd::FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  if (!fact || fact->state != FactState::present) return std::nullopt;
  const auto* list = std::get_if<std::vector<std::string>>(&fact->value);
  return list ? std::optional(*list) : std::nullopt;
}

gd::FactSet preflight(const char* gpu, const char* driver) {
  gd::ProbeOptions options;
  auto target_gpu = gd::parse_target_gpu(gpu);
  REQUIRE(target_gpu);
  options.target = gd::TargetHost{*target_gpu, driver};
  gd::FactSet facts;
  gd::ReplayHost host(gd::Capture{});
  gd::probe_target_host(host, options, facts);
  return facts;
}

}  // namespace

TEST_CASE("target host: the GPU and driver as the PCI and module probes would record them", "[target]") {
  gd::FactSet facts = preflight("10de:2bb5", "580.95.05");
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 1);
  CHECK(facts.get_string("pci.gpu.0.compute_capability"_fact) == "12.0");
  CHECK(facts.get_string("pci.gpu.0.chip"_fact) == "GB202");
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == true);
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(facts.get_string("kmod.nvidia.version"_fact) == "580.95.05");
  CHECK(facts.get_string("target.gpu"_fact) == "RTX PRO 6000 Server (10de:2bb5, GB202, Blackwell, cc 12.0)");
  CHECK(facts.find("kmod.nvidia.gpus_too_new"_fact)->state == FactState::present);
  CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact).value_or(std::vector<std::string>{"?"}).empty());
  // What a pre-flight does not read is unknown, with the reason.
  for (gd::FactName name : {"dev.nvidiactl.state"_fact, "kmod.nvidia.flavor"_fact, "firmware.missing_files"_fact, "klog.readable"_fact,
                           "pci.drivers_bound"_fact, "kmod.nvidia_uvm.loaded"_fact}) {
    INFO(name.view());
    const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
    REQUIRE(fact != nullptr);
    CHECK(fact->state == FactState::unknown);
    CHECK(fact->reason == gd::k_not_read_preflight);
  }
}

TEST_CASE("target host: a GPU newer than the target driver", "[target]") {
  gd::FactSet facts = preflight("B300", "570.124.06");
  auto too_new = list_of(facts, "kmod.nvidia.gpus_too_new"_fact);
  REQUIRE(too_new);
  REQUIRE(too_new->size() == 1);
  CHECK_THAT(too_new->front(), Catch::Contains("first supported by 580.82.07"));
  CHECK(facts.get_string("kmod.nvidia.needed_version"_fact) == "580.82.07");
}

TEST_CASE("target host: a compute capability alone leaves the chip unknown", "[target]") {
  gd::FactSet facts = preflight("sm_90", "580.95.05");
  CHECK(facts.get_string("pci.gpu.0.compute_capability"_fact) == "9.0");
  CHECK(facts.find("pci.gpu.0.chip"_fact)->state == FactState::unknown);
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == false);
}

TEST_CASE("target host: nothing without a target", "[target]") {
  gd::FactSet facts;
  gd::ReplayHost host(gd::Capture{});
  gd::probe_target_host(host, gd::ProbeOptions{}, facts);
  CHECK(facts.all().empty());
}

}  // namespace GD_UNITY_ID
