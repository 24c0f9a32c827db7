#include <catch2/catch.hpp>

#include "core/fact_key.hpp"
#include "core/fact_catalog.hpp"
#include "probes/cross_checks/driver_consistency.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;

namespace {

using Names = std::vector<std::string>;

FactSet module_loaded(const std::string& version) {
  FactSet facts;
  facts.set("kmod.nvidia.version"_fact, version);
  return facts;
}

void run(FactSet& facts) {
  gd::ReplayHost host(gd::Capture{});
  gd::probe_driver_consistency(host, gd::ProbeOptions{}, facts);
}

}  // namespace

TEST_CASE("library version from its file name", "[probes][driver_consistency]") {
  CHECK(gd::library_version_from_path("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04") == "580.159.04");
  CHECK(gd::library_version_from_path("libnvidia-ml.so.575.57") == "575.57");
  CHECK_FALSE(gd::library_version_from_path("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  CHECK_FALSE(gd::library_version_from_path("/usr/lib/libcuda.so"));
  CHECK_FALSE(gd::library_version_from_path("/usr/lib/libcuda.so.580.x"));
}

TEST_CASE("consistency: the helper loaded the module's own release", "[probes][driver_consistency]") {
  FactSet facts = module_loaded("580.159.04");
  facts.set("cuda.libcuda.path"_fact, std::string("/usr/local/nvidia/lib64/libcuda.so.580.159.04"));
  facts.set("nvml.path"_fact, std::string("/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04"));
  run(facts);
  CHECK(std::get<Names>(facts.find("kmod.nvidia.userspace_mismatch"_fact)->value).empty());
}

TEST_CASE("consistency: libraries upgraded, module not reloaded", "[probes][driver_consistency]") {
  FactSet facts = module_loaded("570.124.06");
  facts.set("cuda.libcuda.path"_fact, std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"));
  facts.set("nvml.path"_fact, std::string("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04"));
  run(facts);
  CHECK(std::get<Names>(facts.find("kmod.nvidia.userspace_mismatch"_fact)->value) ==
        Names{"libcuda 580.159.04 (/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04)",
              "libnvidia-ml 580.159.04 (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04)"});
}

TEST_CASE("consistency: forward-compatibility libcuda is not a mismatch", "[probes][driver_consistency]") {
  FactSet facts = module_loaded("580.159.04");
  facts.set("cuda.libcuda.path"_fact, std::string("/usr/local/cuda-13.0/compat/libcuda.so.580.95.05"));
  facts.set("nvml.path"_fact, std::string("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04"));
  run(facts);
  CHECK(std::get<Names>(facts.find("kmod.nvidia.userspace_mismatch"_fact)->value).empty());
}

TEST_CASE("consistency: without the helper, the loader's prediction is used", "[probes][driver_consistency]") {
  FactSet facts = module_loaded("570.124.06");
  // A fact of the libraries probe (declared by its catalogue section); only read here. A rename
  // there must fail this case, not make it assert nothing.
  REQUIRE(gd::find_fact_spec("lib.libcuda.resolved_version"_fact));
  facts.set("lib.libcuda.resolved_version"_fact, std::string("580.159.04"));
  run(facts);
  CHECK(std::get<Names>(facts.find("kmod.nvidia.userspace_mismatch"_fact)->value) == Names{"libcuda 580.159.04"});
}

TEST_CASE("consistency: module not loaded, or nothing known of user space", "[probes][driver_consistency]") {
  FactSet none;
  none.set_absent("kmod.nvidia.version"_fact);
  run(none);
  CHECK(none.find("kmod.nvidia.userspace_mismatch"_fact)->state == FactState::absent);

  FactSet unknown = module_loaded("580.159.04");
  run(unknown);
  CHECK(unknown.find("kmod.nvidia.userspace_mismatch"_fact)->state == FactState::unknown);
}

TEST_CASE("consistency: the predicted libcuda against the one the helper mapped", "[probes][driver_consistency]") {
  SECTION("the same file") {
    FactSet facts = module_loaded("580.159.04");
    facts.set("lib.libcuda.resolved_real"_fact, std::string("/usr/local/nvidia/lib64/libcuda.so.580.159.04"));
    facts.set("cuda.libcuda.path"_fact, std::string("/usr/local/nvidia/lib64/libcuda.so.580.159.04"));
    run(facts);
    CHECK(facts.get_bool("lib.libcuda.matches_loaded"_fact) == true);
  }
  SECTION("another file: something the prediction does not model chose it") {
    FactSet facts = module_loaded("580.159.04");
    facts.set("lib.libcuda.resolved_real"_fact, std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"));
    facts.set("cuda.libcuda.path"_fact, std::string("/usr/local/cuda-13.0/compat/libcuda.so.580.95.05"));
    run(facts);
    CHECK(facts.get_bool("lib.libcuda.matches_loaded"_fact) == false);
  }
  SECTION("no helper run: unknown, not false") {
    FactSet facts = module_loaded("580.159.04");
    facts.set("lib.libcuda.resolved_real"_fact, std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"));
    run(facts);
    const gd::Fact* fact = facts.find("lib.libcuda.matches_loaded"_fact);
    REQUIRE(fact != nullptr);
    CHECK(fact->state == FactState::unknown);
  }
}

}  // namespace GD_UNITY_ID
