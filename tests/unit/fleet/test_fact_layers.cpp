// The diff's layer table and its explicit list of volatile facts, checked against the fact
// catalogue and the overview, so neither can drift from what reports contain.
#include "fleet/fact_layers.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "core/fact_key.hpp"
#include "core/fact_catalog.hpp"
#include "replayed_reports.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

TEST_CASE("fact layers: the first layers are the overview's lines, in its order", "[fleet][layers]") {
  gd::Report report = gd::test::replayed_report("h200-live-ml");
  auto layers = gd::diff_layers();
  REQUIRE(layers.size() >= report.areas.size());
  for (std::size_t i = 0; i < report.areas.size(); ++i) {
    CHECK(layers[i].id == report.areas[i].id);
    CHECK(layers[i].title == report.areas[i].title);
  }
}

TEST_CASE("fact layers: every catalogued fact belongs to a layer, and a prefix to the right one", "[fleet][layers]") {
  auto layers = gd::diff_layers();
  for (const gd::FactSpec& spec : gd::fact_catalog()) {
    INFO(spec.name);
    CHECK(layers[gd::diff_layer_of(spec.name)].id != "other");
  }
  CHECK(layers[gd::diff_layer_of("kmod.nvidia.version"_fact)].id == "driver");
  CHECK(layers[gd::diff_layer_of("firmware.missing_files"_fact)].id == "driver");
  CHECK(layers[gd::diff_layer_of("env.nvidia_visible_devices"_fact)].id == "container");
  CHECK(layers[gd::diff_layer_of("env.ld_library_path"_fact)].id == "environment");
  CHECK(layers[gd::diff_layer_of("proc.devices.uvm_major"_fact)].id == "devices");
  CHECK(layers[gd::diff_layer_of("system.glibc_version"_fact)].id == "system");
  CHECK(layers[gd::diff_layer_of("future.fact")].id == "other");
}

TEST_CASE("fact layers: each volatile fact names catalogued facts", "[fleet][layers]") {
  for (const gd::VolatileFact& v : gd::volatile_facts()) {
    INFO(v.pattern);
    bool found = false;
    for (const gd::FactSpec& spec : gd::fact_catalog()) found = found || spec.name == v.pattern;
    CHECK(found);
    CHECK_FALSE(v.why.empty());
  }
  CHECK(gd::is_volatile_fact("cuda.device.3.uuid"_fact));
  CHECK(gd::is_volatile_fact("nvml.device.0.process_pids"_fact));
  CHECK(gd::is_volatile_fact("cuda.helper.duration_ms"_fact));
  CHECK(gd::is_volatile_fact("host.name"_fact));
  CHECK_FALSE(gd::is_volatile_fact("cuda.device.3.name"_fact));
  CHECK_FALSE(gd::is_volatile_fact("kmod.nvidia.version"_fact));
  CHECK_FALSE(gd::is_volatile_fact("cuda.helper.timeout_ms"_fact));  // a setting, not a measurement
}

TEST_CASE("fact layers: a * in a pattern is exactly one segment", "[fleet][layers]") {
  CHECK(gd::fact_matches("cuda.device.*.uuid", "cuda.device.12.uuid"_fact));
  CHECK_FALSE(gd::fact_matches("cuda.device.*.uuid", "cuda.device.uuid"));
  CHECK_FALSE(gd::fact_matches("cuda.device.*.uuid", "cuda.device.1.2.uuid"));
  CHECK_FALSE(gd::fact_matches("cuda.device.*.uuid", "cuda.device.1.uuid.x"));
  CHECK_FALSE(gd::fact_matches("host.name"_fact, "host.names"));
  CHECK(gd::fact_matches("host.name"_fact, "host.name"_fact));
}

}  // namespace GD_UNITY_ID
