// The NVLink layer's overview line (probes/nvlink/nvlink_overview.cpp): the IMEX part, shown only
// where a multi-node NVLink node has something to show.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/all_layers.hpp"
#include "core/fact_key.hpp"
#include "probes/nvlink/nvlink_overview.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::FactSet;
using namespace gd::fact_literals;

namespace {

const gd::Layer& nvlink_layer() { return gd::layer_named("nvlink"); }

/// A GB200 compute tray: 4 GPUs, 18 NVLink 5 links each, all up.
FactSet gb200_tray() {
  FactSet facts;
  facts.set("nvml.device_count"_fact, std::int64_t{4});
  facts.set("nvlink.gpus_with_links"_fact, std::int64_t{4});
  facts.set("nvlink.links_per_gpu"_fact, std::int64_t{18});
  facts.set("nvlink.max_links_up"_fact, std::int64_t{18});
  facts.set("nvlink.version"_fact, std::string("5.0"));
  facts.set("nvlink.links_down"_fact, std::vector<std::string>{});
  facts.set("nvlink.gpus_fewer_links"_fact, std::vector<std::string>{});
  facts.set("nvlink.error_links"_fact, std::vector<std::string>{});
  return facts;
}

std::string summary_of(const FactSet& facts) { return gd::areas::nvlink_overview_line(nvlink_layer(), facts, {}).summary; }

}  // namespace

TEST_CASE("nvlink line: IMEX only where there is some", "[report][areas][nvlink][imex]") {
  FactSet facts = gb200_tray();
  facts.set_absent("nvlink.imex.channels"_fact, "/dev/nvidia-caps-imex-channels");
  facts.set("nvlink.imex.channel_count"_fact, std::int64_t{0});
  facts.set("service.imex.running"_fact, false);
  CHECK(summary_of(facts) == "4 GPUs, 18 links each, all up (NVLink 5.0)");

  facts.set("nvlink.imex.channels"_fact, std::vector<std::string>{"channel0"});
  facts.set("nvlink.imex.channel_count"_fact, std::int64_t{1});
  facts.set("service.imex.running"_fact, true);
  CHECK(summary_of(facts) == "4 GPUs, 18 links each, all up (NVLink 5.0); IMEX: 1 channel");

  facts.set("nvlink.imex.channels"_fact, std::vector<std::string>{"channel0", "channel1"});
  facts.set("nvlink.imex.channel_count"_fact, std::int64_t{2});
  CHECK(summary_of(facts) == "4 GPUs, 18 links each, all up (NVLink 5.0); IMEX: 2 channels");

  // The daemon runs and nothing can use it (the channels are lost at every reboot).
  facts.set_absent("nvlink.imex.channels"_fact, "/dev/nvidia-caps-imex-channels");
  facts.set("nvlink.imex.channel_count"_fact, std::int64_t{0});
  CHECK(summary_of(facts) == "4 GPUs, 18 links each, all up (NVLink 5.0); IMEX running, no channel");

  // Not seen from a container, and no channel there: nothing to say.
  facts.set_unknown("service.imex.running"_fact, "inside a container the host's processes are not visible", "/proc/*/comm");
  CHECK(summary_of(facts) == "4 GPUs, 18 links each, all up (NVLink 5.0)");
}

}  // namespace GD_UNITY_ID
