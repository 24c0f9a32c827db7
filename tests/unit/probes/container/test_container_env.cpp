#include "probes/container/container_env.hpp"

#include <catch2/catch.hpp>

#include "fact_access.hpp"

#include <cerrno>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "container_probe_run.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;

using gd::test::state_of;
using gd::test::reason_of;
using gd::test::list_of;
using gd::test::set_file;

namespace {

using Strings = std::vector<std::string>;

/// Replays the capture through the probes this one builds on (container_probe_run.hpp), then it.
FactSet run(Capture capture) {
  return gd::test::facts_after_module_and_nodes(std::move(capture), [](gd::ReplayHost& host, FactSet& facts) {
    gd::record_nvidia_container_env(host, facts);
  });
}

Capture h200() { return gd::test::h200_container_capture(); }

void set_version(Capture& c, std::string_view version) {
  set_file(c, "/proc/driver/nvidia/version",
           "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + std::string(version) + "  Release Build  (dvs-builder@U22)\n");
}

}  // namespace

TEST_CASE("container env: NVIDIA_REQUIRE_CUDA above the driver", "[probes][container_env]") {
  Capture c = h200();
  set_version(c, "550.54.14");
  c.env["NVIDIA_REQUIRE_CUDA"] = "cuda>=12.8";
  FactSet facts = run(c);
  CHECK(facts.get_string("container.driver_cuda_version"_fact) == "12.4");
  CHECK(facts.get_string("container.require_cuda_unmet"_fact) == "cuda>=12.8");

  // The real CUDA 13 image on a 560 host: none of its alternatives names a 560 driver.
  Capture old = h200();
  set_version(old, "560.35.03");
  CHECK(run(old).get_string("container.require_cuda_unmet"_fact) == "cuda>=13.0");

  // On 570 it depends on the GPU's brand: unknown, with the reason.
  Capture r570 = h200();
  set_version(r570, "570.124.06");
  FactSet f570 = run(r570);
  CHECK(state_of(f570, "container.require_cuda_unmet"_fact) == FactState::unknown);
  CHECK(reason_of(f570, "container.require_cuda_unmet"_fact) == "met only if the GPU's brand matches, which gpudoctor does not read");

  // NVIDIA_DISABLE_REQUIRE turns the check off, as the runtime does.
  Capture disabled = c;
  disabled.env["NVIDIA_DISABLE_REQUIRE"] = "true";
  CHECK(state_of(run(disabled), "container.require_cuda_unmet"_fact) == FactState::absent);

  // A legacy image: CUDA_VERSION without NVIDIA_REQUIRE_CUDA means cuda>=major.minor.
  Capture legacy = h200();
  set_version(legacy, "535.161.07");
  legacy.env["NVIDIA_REQUIRE_CUDA"] = std::nullopt;
  legacy.env["CUDA_VERSION"] = "12.4.1";
  FactSet legacy_facts = run(legacy);
  CHECK(legacy_facts.get_string("container.require_cuda_unmet"_fact) == "cuda>=12.4");
  CHECK(legacy_facts.find("container.require_cuda_unmet"_fact)->source == "env:CUDA_VERSION (legacy image: cuda>=12.4)");

  // No module: nothing to compare with.
  Capture no_module = h200();
  for (const char* path : {"/proc/driver/nvidia/version", "/sys/module/nvidia/version"}) {
    no_module.paths.erase(path);
  }
  no_module.paths["/proc/modules"].read = std::string("ext4 1003520 1 - Live 0xffffffffc0a00000\n");
  FactSet none = run(no_module);
  CHECK(state_of(none, "container.driver_cuda_version"_fact) == FactState::absent);
  CHECK(state_of(none, "container.require_cuda_unmet"_fact) == FactState::unknown);
}

TEST_CASE("container env: NVIDIA_DRIVER_CAPABILITIES", "[probes][container_env]") {
  auto missing = [](std::optional<std::string> value) {
    Capture c = h200();
    c.env["NVIDIA_DRIVER_CAPABILITIES"] = std::move(value);
    return list_of(run(c), "container.missing_driver_capabilities"_fact);
  };
  CHECK(missing("graphics,video") == Strings{"compute", "utility"});
  CHECK(missing("utility") == Strings{"compute"});
  CHECK(missing("compute") == Strings{"utility"});
  CHECK(missing("all").empty());
  CHECK(missing("compute, utility").empty());
  // Unset or empty: the toolkit's default "utility,compute".
  CHECK(missing(std::nullopt).empty());
  CHECK(missing("").empty());
}

TEST_CASE("container env: CUDA_VISIBLE_DEVICES against the driver's GPUs", "[probes][container_env]") {
  auto facts_for = [](std::string value) {
    Capture c = h200();
    c.env["CUDA_VISIBLE_DEVICES"] = std::move(value);
    return run(c);
  };
  FactSet two = facts_for("0,1");
  CHECK(state_of(two, "container.cuda_visible_devices_malformed"_fact) == FactState::absent);
  CHECK(two.get_string("container.cuda_visible_devices_absent"_fact) == "1");
  FactSet uuid = facts_for("GPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f");
  CHECK(state_of(uuid, "container.cuda_visible_devices_absent"_fact) == FactState::absent);
  FactSet other_uuid = facts_for("GPU-8932f937");
  CHECK(other_uuid.get_string("container.cuda_visible_devices_absent"_fact) == "GPU-8932f937");
  FactSet bad = facts_for("0,gpu1");
  CHECK(bad.get_string("container.cuda_visible_devices_malformed"_fact) == "gpu1");
  CHECK(state_of(bad, "container.cuda_visible_devices_absent"_fact) == FactState::absent);
}

}  // namespace GD_UNITY_ID
