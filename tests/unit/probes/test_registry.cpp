// Which probes a run runs follows from their layers' kinds (core/all_layers.hpp): a pre-flight
// skips the host layers' probes and runs its own stand-ins, --scope node skips the environment
// layers' probes, and both set what they leave out unknown with the reason.

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/fact_key.hpp"
#include "core/all_layers.hpp"
#include "probes/probe.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

std::set<std::string_view> registry_probes_run(const gd::ProbeOptions& options) {
  std::set<std::string_view> names;
  for (const gd::ProbeEntry& probe : gd::all_probes()) {
    if (gd::probe_runs(probe, options)) names.insert(probe.name);
  }
  return names;
}

gd::ProbeOptions registry_preflight_options() {
  gd::ProbeOptions options;
  auto gpu = gd::parse_target_gpu("H200");
  REQUIRE(gpu);
  options.target = gd::TargetHost{*gpu, "580.95.05", {}};
  return options;
}

}  // namespace

TEST_CASE("registry: every probe is named once and its layer is a row of the table", "[registry]") {
  std::set<std::string_view> names;
  for (const gd::ProbeEntry& probe : gd::all_probes()) {
    INFO(probe.name);
    CHECK(names.insert(probe.name).second);
    CHECK(gd::find_layer(probe.layer.id) == &probe.layer);
  }
}

TEST_CASE("registry: every layer of the table has a probe (a row without one makes no facts)", "[registry]") {
  // NVML's facts are made by the cuda layer's probe: one helper process asks libcuda and NVML;
  // NVLink's links too, since NVML's thread reads them (its IMEX channels, files in /dev, have a
  // probe of their own); and the pair proof's (p2p), proved beside the GPUs themselves.
  const std::set<std::string_view> made_by_another = {"nvml", "p2p"};
  std::set<std::string_view> with_probe;
  for (const gd::ProbeEntry& probe : gd::all_probes()) with_probe.insert(probe.layer.id);
  for (const gd::Layer& layer : gd::all_layers()) {
    INFO(layer.id);
    CHECK(with_probe.count(layer.id) == (made_by_another.count(layer.id) ? 0u : 1u));
  }
}

TEST_CASE("registry: a live run runs every probe but the pre-flight's", "[registry]") {
  std::set<std::string_view> run = registry_probes_run(gd::ProbeOptions{});
  for (const gd::ProbeEntry& probe : gd::all_probes()) {
    INFO(probe.name);
    CHECK(run.count(probe.name) == (probe.runs == gd::ProbeRuns::always ? 1u : 0u));
  }
  CHECK(run.count("target_host") == 0);
}

TEST_CASE("registry: a pre-flight skips the host layers and runs its stand-ins", "[registry]") {
  std::set<std::string_view> run = registry_probes_run(registry_preflight_options());
  for (const char* host_layer : {"pci", "nvidia_module", "firmware", "device_nodes", "kernel_log"}) {
    INFO(host_layer);
    CHECK(run.count(host_layer) == 0);
  }
  for (const char* stand_in : {"target_host", "target_container", "target_libraries"}) {
    INFO(stand_in);
    CHECK(run.count(stand_in) == 1);
  }
  for (const char* read_in_image : {"system", "environment", "containers", "libraries", "cuda_toolkits", "services",
                                    "cuda_driver", "python_stack", "driver_consistency", "gpu_busy",
                                    "proof_coverage", "ml_consistency"}) {
    INFO(read_in_image);
    CHECK(run.count(read_in_image) == 1);
  }
}

TEST_CASE("registry: --scope node skips the environment layers' probes", "[registry]") {
  gd::ProbeOptions options;
  options.node_scope = true;
  std::set<std::string_view> run = registry_probes_run(options);
  for (const char* environment : {"python_stack", "cuda_toolkits", "ml_consistency"}) {
    INFO(environment);
    CHECK(run.count(environment) == 0);
  }
  CHECK(run.count("environment") == 1);  // the variables are read: their rules say scope = "environment"
  CHECK(run.count("cuda_driver") == 1);
  CHECK(run.count("kernel_log") == 1);
}

TEST_CASE("registry: what --scope node leaves out is unknown, with the reason", "[registry]") {
  gd::ProbeOptions options;
  options.node_scope = true;
  options.run_cuda_helper = false;
  gd::ReplayHost host(gd::Capture{});
  gd::FactSet facts = gd::collect_facts(host, options);
  for (const gd::Layer& layer : gd::all_layers()) {
    if (layer.kind != gd::LayerKind::environment) continue;
    for (gd::CatalogSection section : layer.sections) {
      for (const gd::FactSpec& spec : section()) {
        if (spec.name.find('*') != std::string_view::npos) continue;
        INFO(spec.name);
        const gd::Fact* fact = facts.find(gd::FactName::unchecked(spec.name));
        REQUIRE(fact != nullptr);
        CHECK(fact->state == gd::FactState::unknown);
        CHECK(fact->reason == gd::k_not_checked_node_scope);
      }
    }
  }
  REQUIRE(facts.find("py.interpreters"_fact) != nullptr);
  CHECK(facts.find("py.interpreters"_fact)->source == "scope:node");
  REQUIRE(facts.find("toolkit.count"_fact) != nullptr);
  CHECK(facts.find("toolkit.count"_fact)->source == "scope:node");
}

}  // namespace GD_UNITY_ID
