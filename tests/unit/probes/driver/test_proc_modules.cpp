#include <catch2/catch.hpp>
#include <cerrno>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "probes/driver/proc_modules.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;

namespace {

/// /proc/modules of the real H200 host (tests/hosts/h200-container-580.159.04.capture.json).
std::string h200_proc_modules() {
  return **gd::test::host_capture("h200-container-580.159.04").paths.at("/proc/modules").read;
}

// A desktop with the full stack and nouveau still listed (kernel/module/procfs.c format with
// CONFIG_MODULE_UNLOAD: reference count and users).
constexpr std::string_view k_desktop =
    "nvidia_drm 126976 4 - Live 0xffffffffc1a2d000 (POE)\n"
    "nvidia_modeset 1560576 3 nvidia_drm, Live 0xffffffffc186e000 (POE)\n"
    "nvidia_uvm 4956160 0 - Live 0xffffffffc13a1000 (POE)\n"
    "nvidia 60456960 45 nvidia_drm,nvidia_modeset,nvidia_uvm, Live 0xffffffffbd400000 (POE)\n"
    "nouveau 3096576 0 - Unloading 0xffffffffc0f00000\n"
    "video 73728 2 nouveau,i915, Live 0xffffffffc0a8e000\n";

FactSet run(Capture capture) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  gd::record_loaded_modules(host, facts);
  return facts;
}

}  // namespace

TEST_CASE("proc modules: the real H200 host", "[probes][proc_modules]") {
  auto modules = gd::parse_proc_modules(h200_proc_modules());
  REQUIRE(modules.size() == 2);
  CHECK(modules[0].name == "nvidia_uvm");
  CHECK(modules[0].size == 1830912);
  CHECK(modules[0].state == "Live");
  CHECK(modules[1].name == "nvidia");
  CHECK(modules[1].size == 14299136);
}

TEST_CASE("proc modules: states, users and '-' in names", "[probes][proc_modules]") {
  auto modules = gd::parse_proc_modules(k_desktop);
  REQUIRE(modules.size() == 6);
  CHECK(gd::find_module(modules, "nvidia-drm"));
  CHECK(gd::find_module(modules, "nouveau")->state == "Unloading");
  CHECK_FALSE(gd::find_module(modules, "nvidia_peermem"));
}

TEST_CASE("proc modules: malformed lines are skipped", "[probes][proc_modules]") {
  auto modules =
      gd::parse_proc_modules("garbage\nnvidia abc 0 - Live 0x0\nnvidia 12 0 - Sleeping 0x0\n\nok 1 0 - Live 0x0");
  REQUIRE(modules.size() == 1);
  CHECK(modules[0].name == "ok");
}

TEST_CASE("proc modules probe: the captured H200", "[probes][proc_modules]") {
  FactSet facts = run(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(facts.get_bool("kmod.nvidia_uvm.loaded"_fact) == true);
  CHECK(facts.get_bool("kmod.nvidia_modeset.loaded"_fact) == false);
  CHECK(facts.get_bool("kmod.nvidia_drm.loaded"_fact) == false);
  CHECK(facts.get_bool("kmod.nvidia_peermem.loaded"_fact) == false);
  CHECK(facts.get_bool("kmod.nouveau.loaded"_fact) == false);
  CHECK(facts.find("kmod.nvidia_uvm.loaded"_fact)->source == "/proc/modules");
}

TEST_CASE("proc modules probe: a module that is unloading is not loaded", "[probes][proc_modules]") {
  Capture capture;
  capture.paths["/proc/modules"].read = std::string(k_desktop);
  FactSet facts = run(std::move(capture));
  CHECK(facts.get_bool("kmod.nvidia_drm.loaded"_fact) == true);
  CHECK(facts.get_bool("kmod.nouveau.loaded"_fact) == false);
}

TEST_CASE("proc modules probe: without /proc/modules nothing is known", "[probes][proc_modules]") {
  FactSet facts = run(Capture{});
  const gd::Fact* uvm = facts.find("kmod.nvidia_uvm.loaded"_fact);
  REQUIRE(uvm);
  CHECK(uvm->state == FactState::unknown);
  CHECK_THAT(uvm->reason, Catch::Contains("no /proc/modules"));
}

}  // namespace GD_UNITY_ID
