// Diffing two nodes' reports: replays of two captured hosts, and copies of one report with a
// few facts changed, so each difference the diff must find is known.
#include "fleet/report_diff.hpp"

#include <catch2/catch.hpp>

#include "fleet/diff_render.hpp"
#include "fleet/fact_layers.hpp"
#include "replayed_reports.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using nlohmann::json;

namespace {

gd::DiffSide side(const std::string& capture, const std::string& node) {
  auto s = gd::diff_side_from_report(json::parse(gd::test::replayed_report_json(capture, node)), capture + ".json", "report");
  REQUIRE(s);
  return *s;
}

const gd::FactDifference* find_fact(const gd::ReportDiff& d, const std::string& name, std::string* layer = nullptr) {
  for (const gd::LayerDifferences& l : d.layers) {
    for (const gd::FactDifference& f : l.facts) {
      if (f.fact == name) {
        if (layer) *layer = l.id;
        return &f;
      }
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("diff: a report against itself, under another node name, is the same", "[fleet][diff]") {
  gd::ReportDiff d = gd::diff_reports(side("lxc-stale-uvm-major", "a"), side("lxc-stale-uvm-major", "b"), gd::ShowVolatile::no);
  CHECK(d.same());
  CHECK(d.only_a.empty());
  CHECK_FALSE(d.both.empty());
  CHECK(d.volatile_left_out == 0);
}

TEST_CASE("diff: two captured hosts: the findings only one has, then the facts by layer", "[fleet][diff]") {
  gd::DiffSide healthy = side("h200-container-580.159.04", "good");
  gd::DiffSide broken = side("lxc-stale-uvm-major", "bad");
  gd::Report broken_report = gd::test::replayed_report("lxc-stale-uvm-major");
  gd::ReportDiff d = gd::diff_reports(healthy, broken, gd::ShowVolatile::no);
  CHECK_FALSE(d.same());
  REQUIRE_FALSE(d.only_b.empty());
  CHECK(d.only_b[0].id == broken_report.findings.at(0).id);
  CHECK(d.only_b[0].severity == gd::to_string(broken_report.findings[0].severity));
  // Layers come in the overview's order, each only once.
  auto layers = gd::diff_layers();
  std::size_t last = 0;
  for (const gd::LayerDifferences& l : d.layers) {
    std::size_t index = 0;
    while (layers[index].id != l.id) ++index;
    CHECK(index >= last);
    last = index + 1;
    CHECK_FALSE(l.facts.empty());
  }
  for (const gd::LayerDifferences& l : d.layers) {
    for (const gd::FactDifference& f : l.facts) {
      CHECK_FALSE(f.is_volatile);  // left out without -v
      CHECK(f.a != f.b);
    }
  }
}

TEST_CASE("diff: changed, missing and volatile facts", "[fleet][diff]") {
  json base = json::parse(gd::test::replayed_report_json("h200-live-580.159.04", "n1"));
  json other = base;
  other["facts"]["kmod.nvidia.version"_fact] = {{"state", "present"}, {"type", "version"}, {"value", "575.57.08"}, {"source", "x"}};
  other["facts"]["cuda.helper.duration_ms"_fact]["value"] = 99999;
  other["facts"]["nvml.init.result"_fact] = {{"state", "unknown"}, {"reason", "timed out"}};
  other["facts"].erase("klog.readable"_fact);
  other["facts"]["future.fact"] = {{"state", "present"}, {"value", true}};
  other["facts"]["pci.gpus"_fact]["source"] = "elsewhere";  // only the source differs: the same fact
  // Absent for another reason, or absent here and not in the other report at all: no difference.
  REQUIRE(base["facts"]["cuda.clean_env.init.result"_fact]["state"] == "absent");
  other["facts"]["cuda.clean_env.init.result"_fact]["reason"] = "some other reason";
  REQUIRE(base["facts"]["cuda.clean_env.device_count"_fact]["state"] == "absent");
  other["facts"].erase("cuda.clean_env.device_count"_fact);
  auto a = gd::diff_side_from_report(base, "a.json", "report");
  auto b = gd::diff_side_from_report(other, "b.json", "report");
  REQUIRE(a);
  REQUIRE(b);

  gd::ReportDiff d = gd::diff_reports(*a, *b, gd::ShowVolatile::no);
  CHECK(d.facts_differing == 4);
  CHECK(d.volatile_left_out == 1);
  std::string layer;
  const gd::FactDifference* kmod = find_fact(d, "kmod.nvidia.version"_fact, &layer);
  REQUIRE(kmod);
  CHECK(layer == "driver");
  CHECK(gd::fact_value_text(kmod->b) == "575.57.08");
  CHECK(gd::fact_value_text(kmod->a) == base["facts"]["kmod.nvidia.version"_fact]["value"].get<std::string>());
  REQUIRE(find_fact(d, "nvml.init.result"_fact));
  CHECK(gd::fact_value_text(find_fact(d, "nvml.init.result"_fact)->b) == "unknown (timed out)");
  REQUIRE(find_fact(d, "klog.readable"_fact));
  CHECK(gd::fact_value_text(find_fact(d, "klog.readable"_fact)->b) == "not in the report");
  REQUIRE(find_fact(d, "future.fact", &layer));
  CHECK(layer == "other");
  CHECK_FALSE(find_fact(d, "cuda.helper.duration_ms"_fact));
  CHECK_FALSE(find_fact(d, "pci.gpus"_fact));
  CHECK_FALSE(find_fact(d, "cuda.clean_env.init.result"_fact));
  CHECK_FALSE(find_fact(d, "cuda.clean_env.device_count"_fact));

  gd::ReportDiff verbose = gd::diff_reports(*a, *b, gd::ShowVolatile::yes);
  CHECK(verbose.facts_differing == 5);
  CHECK(verbose.volatile_left_out == 0);
  REQUIRE(find_fact(verbose, "cuda.helper.duration_ms"_fact));
  CHECK(find_fact(verbose, "cuda.helper.duration_ms"_fact)->is_volatile);

  // Only volatile facts differ: the same.
  json timing = base;
  timing["facts"]["cuda.helper.duration_ms"_fact]["value"] = 1;
  auto t = gd::diff_side_from_report(timing, "t.json", "report");
  REQUIRE(t);
  CHECK(gd::diff_reports(*a, *t, gd::ShowVolatile::no).same());
  CHECK_FALSE(gd::diff_reports(*a, *t, gd::ShowVolatile::yes).same());
}

TEST_CASE("diff: what is not a report says why", "[fleet][diff]") {
  CHECK(gd::diff_side_from_report(json::array(), "x", "report").error() == "not a gpudoctor report: the JSON is not an object");
  CHECK(gd::diff_side_from_report(json{{"a", 1}}, "x", "report").error() ==
        "not a gpudoctor report or capture: it has no schema_version");
  CHECK(gd::diff_side_from_report(json{{"schema_version", 3}, {"findings", json::array()}, {"facts", json::object()}}, "x",
                                  "report")
            .error() == "schema_version 3 is newer than this gpudoctor reads (1): compare it with a newer gpudoctor");
  CHECK(gd::diff_side_from_report(json{{"schema_version", 1}, {"findings", json::array()}}, "x", "report").error() ==
        "not a gpudoctor report: it has no facts");
}

TEST_CASE("diff render: text lists both values under their layer; JSON is the contract", "[fleet][diff]") {
  json base = json::parse(gd::test::replayed_report_json("h200-live-580.159.04", "n1"));
  json other = base;
  other["facts"]["kmod.nvidia.version"_fact]["value"] = "575.57.08";
  other["facts"]["cuda.helper.duration_ms"_fact]["value"] = 99999;
  other["findings"].push_back({{"id", "made.up"}, {"severity", "error"}, {"title", "A made-up finding"},
                               {"scope", "node"}, {"action", "reboot"}});
  auto a = gd::diff_side_from_report(base, "a.json", "report");
  auto b = gd::diff_side_from_report(other, "b.json", "capture");
  REQUIRE(a);
  REQUIRE(b);
  gd::ReportDiff d = gd::diff_reports(*a, *b, gd::ShowVolatile::no);
  std::string text = gd::render_diff_text(*a, *b, d, {});
  std::string version = base["facts"]["kmod.nvidia.version"_fact]["value"];
  CHECK(text.starts_with("A: a.json, node n1\nB: b.json (a capture, replayed), node n1\n\n"));
  CHECK(text.find("Findings only in A: none\nFindings only in B (1):\n  error [made.up] A made-up finding (reboot)\n") !=
        std::string::npos);
  CHECK(text.find("1 fact differs, by layer:\nNVIDIA kernel module\n  kmod.nvidia.version\n    A: " + version +
                  "\n    B: 575.57.08\n") != std::string::npos);
  CHECK(text.find("1 volatile facts differ (timings, PIDs, UUIDs, the host name): -v shows them.") != std::string::npos);

  json j = gd::render_diff_json(*a, *b, d);
  CHECK(j["diff_schema_version"] == 1);
  CHECK(j["same"] == false);
  CHECK(j["a"] == json{{"path", "a.json"}, {"kind", "report"}, {"host", "n1"}});
  CHECK(j["findings"]["only_b"][0]["id"] == "made.up");
  CHECK(j["findings"]["only_a"].empty());
  CHECK(j["facts"][0]["layer"] == "driver");
  CHECK(j["facts"][0]["facts"][0]["fact"] == "kmod.nvidia.version");
  CHECK(j["facts"][0]["facts"][0]["b"]["value"] == "575.57.08");
  CHECK(j["facts"][0]["facts"][0]["volatile"] == false);
  CHECK(j["facts_differing"] == 1);
  CHECK(j["volatile_left_out"] == 1);
}

}  // namespace GD_UNITY_ID
