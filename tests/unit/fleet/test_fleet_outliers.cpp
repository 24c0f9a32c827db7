// The odd one out (issue 27 item 1): the configuration facts each layer declares for a fleet, a
// node's value of each (GPUs' values reduced to counts, one wheel of a list), the comparison of
// a fact across nodes against the majority or a reference, and the reference file's two forms.
#include "fleet/fleet_outliers.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "core/all_layers.hpp"
#include "core/fact_catalog.hpp"
#include "fleet/fact_layers.hpp"
#include "fleet/fleet_facts.hpp"
#include "fleet/fleet_reference.hpp"
#include "fleet/fleet_tally.hpp"
#include "fleet/report_digest.hpp"
#include "replayed_reports.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

std::vector<std::string> nodes(const std::string& prefix, int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

gd::DigestFact scalar(std::string name, std::string value, std::string state = "present") {
  return {std::move(name), std::move(state), false, std::move(value), {}};
}

gd::DigestFact list(std::string name, std::vector<std::string> items) {
  return {std::move(name), "present", true, "", std::move(items)};
}

std::optional<std::string> value_of(const gd::FleetFactSelection& s, const std::vector<gd::DigestFact>& facts,
                                    const std::string& key) {
  auto index = s.find(key);
  REQUIRE(index);
  return s.node_values(facts).at(*index);
}

}  // namespace

TEST_CASE("a fact on 97 nodes with one value and 3 with another names the 3, the majority last", "[fleet][outliers]") {
  gd::FactColumn column{"kmod.nvidia.version", {}, std::nullopt};
  column.nodes_by_value["580.95.05"] = nodes("gpu", 1, 97);
  // Read in any order: named in natural order (gpu9 before gpu100).
  column.nodes_by_value["570.86.15"] = {"gpu100", "gpu9", "gpu98"};
  auto outlier = gd::outlier_of(column);
  REQUIRE(outlier);
  CHECK(outlier->fact == "kmod.nvidia.version");
  CHECK_FALSE(outlier->reference);
  REQUIRE(outlier->values.size() == 2);
  CHECK(outlier->values[0].value == "570.86.15");
  CHECK(outlier->values[0].count == 3);
  CHECK(outlier->values[0].nodes == std::vector<std::string>{"gpu9", "gpu98", "gpu100"});
  CHECK_FALSE(outlier->values[0].expected);
  CHECK(outlier->values[1].value == "580.95.05");
  CHECK(outlier->values[1].count == 97);
  CHECK(outlier->values[1].expected);
  CHECK(outlier->values[1].nodes.empty());  // the many are counted, not named
}

TEST_CASE("one value on every node is no outlier; nor is a fact no node has", "[fleet][outliers]") {
  gd::FactColumn uniform{"cuda.driver_version", {{"13000", nodes("gpu", 1, 100)}}, std::nullopt};
  CHECK_FALSE(gd::outlier_of(uniform));
  CHECK_FALSE(gd::outlier_of(gd::FactColumn{"cuda.driver_version", {}, std::nullopt}));
}

TEST_CASE("a tie has no majority: every value's nodes are named, none expected", "[fleet][outliers]") {
  gd::FactColumn column{"torch.version", {{"2.11.0+cu130", {"a", "b"}}, {"2.10.0+cu128", {"c", "d"}}}, std::nullopt};
  auto outlier = gd::outlier_of(column);
  REQUIRE(outlier);
  REQUIRE(outlier->values.size() == 2);
  for (const auto& v : outlier->values) {
    CHECK_FALSE(v.expected);
    CHECK(v.nodes.size() == 2);
  }
  CHECK(outlier->values[0].value == "2.10.0+cu128");  // between equals, by value
}

TEST_CASE("a reference finds the drift the whole fleet shares, which the majority hides", "[fleet][outliers]") {
  gd::FactColumn drift{"kmod.nvidia.version", {{"570.86.15", nodes("gpu", 1, 100)}}, "580.95.05"};
  CHECK_FALSE(gd::outlier_of(gd::FactColumn{drift.fact, drift.nodes_by_value, std::nullopt}));  // no majority sees it
  auto outlier = gd::outlier_of(drift);
  REQUIRE(outlier);
  CHECK(outlier->reference == "580.95.05");
  REQUIRE(outlier->values.size() == 2);
  CHECK(outlier->values[0].value == "570.86.15");
  CHECK(outlier->values[0].count == 100);
  CHECK(outlier->values[0].nodes.size() == 100);
  CHECK(outlier->values[1].value == "580.95.05");
  CHECK(outlier->values[1].count == 0);
  CHECK(outlier->values[1].expected);

  // Against the reference, even the majority's value is odd; the reference's own is not.
  gd::FactColumn mixed{"kmod.nvidia.version", {{"570.86.15", nodes("gpu", 1, 90)}, {"580.95.05", nodes("gpu", 91, 100)}},
                       "580.95.05"};
  auto against = gd::outlier_of(mixed);
  REQUIRE(against);
  CHECK(against->values[0].value == "570.86.15");
  CHECK(against->values[0].nodes.size() == 90);
  CHECK(against->values[1].expected);
  CHECK(against->values[1].count == 10);
  gd::FactColumn good{"kmod.nvidia.version", {{"580.95.05", nodes("gpu", 1, 100)}}, "580.95.05"};
  CHECK_FALSE(gd::outlier_of(good));
}

TEST_CASE("every layer's fleet facts are catalogue facts that do not differ by nature", "[fleet][outliers]") {
  gd::FleetFactSelection curated = gd::FleetFactSelection::curated();
  std::size_t declared = 0;
  for (const gd::Layer& layer : gd::all_layers()) {
    for (std::string_view key : layer.fleet_facts) {
      ++declared;
      INFO(key);
      auto index = curated.find(key);
      REQUIRE(index);  // add() refused it: malformed or volatile
      const gd::FleetFactKey& parsed = curated.keys()[*index];
      CHECK_FALSE(gd::is_volatile_fact(parsed.pattern));
      std::string one = parsed.pattern;  // a GPU's fact: its first GPU's
      for (std::size_t star = one.find('*'); star != std::string::npos; star = one.find('*')) one.replace(star, 1, "0");
      auto spec = gd::find_fact_spec(one);
      REQUIRE(spec);
      // The fact belongs to the layer that declares it for the fleet.
      const gd::Layer* owner = gd::layer_of_fact(one);
      REQUIRE(owner != nullptr);
      CHECK(owner->id == layer.id);
      if (parsed.item_filter) CHECK(spec->type == gd::FactType::list);
    }
  }
  CHECK(curated.keys().size() == declared);  // none declared twice
  for (std::string_view must : {"kmod.nvidia.version", "kmod.nvidia_peermem.loaded", "cuda.device.*.name",
                                "wheels.nvidia[nvidia-nccl*]", "torch.version", "host.kernel_release"}) {
    CHECK(curated.find(must));
  }
}

TEST_CASE("a volatile or malformed key is refused with its reason", "[fleet][outliers]") {
  gd::FleetFactSelection s;
  std::string why;
  CHECK_FALSE(s.add("host.name", &why));
  CHECK(why.find("differs from node to node by nature") != std::string::npos);
  CHECK_FALSE(s.add("cuda.device.*.uuid", &why));
  CHECK_FALSE(s.add("wheels.nvidia[nvidia-nccl]", &why));
  CHECK_FALSE(s.add("kmod nvidia", &why));
  CHECK_FALSE(s.add("", &why));
  CHECK(s.add("kmod.nvidia.version") == 0);
  CHECK(s.add("kmod.nvidia.version") == 0);  // once
  CHECK(s.keys().size() == 1);
}

TEST_CASE("a node's value: GPUs as distinct values with counts, one wheel of a list, absent kept, unknown not",
          "[fleet][outliers]") {
  gd::FleetFactSelection s = gd::FleetFactSelection::curated();
  std::vector<gd::DigestFact> facts = {
      scalar("kmod.nvidia.version", "580.95.05"),
      scalar("kmod.nvidia_peermem.loaded", "", "absent"),
      scalar("torch.version", "", "unknown"),
      scalar("cuda.device.0.name", "NVIDIA H200"),
      scalar("cuda.device.1.name", "NVIDIA H100 80GB HBM3"),
      scalar("cuda.device.2.name", "NVIDIA H200"),
      scalar("cuda.device.3.name", "", "unknown"),
      list("wheels.nvidia", {"nvidia-cublas 13.1.0.3", "nvidia-nccl-cu13 2.28.9", "nvidia-nvtx 13.0.85"}),
      list("kmod.nvidia.gpu_firmware_versions", {"580.95.05", "580.95.05"}),
  };
  CHECK(value_of(s, facts, "kmod.nvidia.version") == "580.95.05");
  CHECK(value_of(s, facts, "kmod.nvidia_peermem.loaded") == "(absent)");
  CHECK_FALSE(value_of(s, facts, "torch.version"));  // unknown: the node could not read it
  CHECK_FALSE(value_of(s, facts, "cuda.driver_version"));  // the report has no such fact
  CHECK(value_of(s, facts, "cuda.device.*.name") == "1x NVIDIA H100 80GB HBM3, 2x NVIDIA H200");
  CHECK(value_of(s, facts, "wheels.nvidia[nvidia-nccl*]") == "nvidia-nccl-cu13 2.28.9");
  CHECK(value_of(s, facts, "kmod.nvidia.gpu_firmware_versions") == "580.95.05, 580.95.05");
  // No NCCL wheel: a value of its own, not an unknown.
  CHECK(value_of(s, {list("wheels.nvidia", {"nvidia-cublas 13.1.0.3"})}, "wheels.nvidia[nvidia-nccl*]") == "(none)");
}

TEST_CASE("a real report's digest carries the selected facts and no other", "[fleet][outliers]") {
  gd::FleetFactSelection s = gd::FleetFactSelection::curated();
  auto digest = gd::digest_report(gd::test::replayed_report_json("h200-live-ml", "gpu1", ""), &s);
  REQUIRE(digest);
  for (const gd::DigestFact& f : digest->facts) {
    INFO(f.name);
    CHECK(s.selects(f.name));
  }
  auto values = s.node_values(digest->facts);
  CHECK(values.at(*s.find("kmod.nvidia.version")) == "580.159.04");
  CHECK(values.at(*s.find("cuda.device.*.name")) == "1x NVIDIA H200");
  CHECK(values.at(*s.find("kmod.nvidia_peermem.loaded")) == "false");
  CHECK(values.at(*s.find("wheels.nvidia[nvidia-nccl*]")) == "nvidia-nccl-cu13 2.28.9");
  CHECK(values.at(*s.find("torch.version")) == "2.11.0+cu130");
  // Without a selection, as before: no facts kept.
  auto plain = gd::digest_report(gd::test::replayed_report_json("h200-live-ml", "gpu1", ""));
  REQUIRE(plain);
  CHECK(plain->facts.empty());
}

TEST_CASE("a hostile report's facts are bounded: count, value length, nesting", "[fleet][outliers]") {
  gd::FleetFactSelection s = gd::FleetFactSelection::curated();
  std::string text = R"({"schema_version": 1, "findings": [], "facts": {)";
  for (int i = 0; i < 10000; ++i) {
    text += R"("cuda.device.)" + std::to_string(i) + R"(.name": {"state": "present", "value": "NVIDIA H200"},)";
  }
  text += R"("kmod.nvidia.version": {"state": "present", "value": {"nested": ["580"]}},)";
  text += R"("torch.version": {"state": "present", "value": ")" + std::string(100000, 'x') + R"("}})";
  text += "}";
  auto digest = gd::digest_report(text, &s);
  REQUIRE(digest);
  CHECK(digest->facts.size() == gd::k_max_digest_facts);
  auto values = s.node_values(digest->facts);
  CHECK(values.at(*s.find("cuda.device.*.name")) == std::to_string(gd::k_max_digest_facts) + "x NVIDIA H200");
}

TEST_CASE("a nested value is no value, a long one is cut", "[fleet][outliers]") {
  gd::FleetFactSelection s = gd::FleetFactSelection::curated();
  std::string text = R"({"schema_version": 1, "findings": [], "facts": {)"
                     R"("kmod.nvidia.version": {"state": "present", "value": {"nested": ["580"]}},)"
                     R"("torch.version": {"state": "present", "value": ")" +
                     std::string(100000, 'x') + R"("}}})";
  auto digest = gd::digest_report(text, &s);
  REQUIRE(digest);
  auto values = s.node_values(digest->facts);
  CHECK(values.at(*s.find("kmod.nvidia.version")) == "");
  CHECK(values.at(*s.find("torch.version"))->size() <= 2048 + 3);
}

TEST_CASE("the tally compares the nodes' values; the newer report of a node counts", "[fleet][outliers]") {
  gd::FleetComparison comparison{{"kmod.nvidia.version", "torch.version"}, {}};
  gd::FleetTally tally(gd::CauseScope::all, comparison);
  auto report = [](const std::string& host, const std::string& started) {
    gd::ReportDigest d;
    d.schema_version = 1;
    d.host = host;
    d.started = started;
    return d;
  };
  for (int i = 1; i <= 5; ++i) {
    tally.add_report("r" + std::to_string(i), report("gpu" + std::to_string(i), "2026-12-01T09:00:00.000Z"),
                     {"580", "2.11"});
  }
  // gpu3 reported again, newer, with another driver; gpu4 again, older, with another.
  tally.add_report("r3b", report("gpu3", "2026-12-01T10:00:00.000Z"), {"570", "2.11"});
  tally.add_report("r4b", report("gpu4", "2026-12-01T08:00:00.000Z"), {"560", std::nullopt});
  gd::FleetSummary s = tally.summary();
  CHECK_FALSE(s.has_reference);
  REQUIRE(s.outliers.size() == 1);
  CHECK(s.outliers[0].fact == "kmod.nvidia.version");
  REQUIRE(s.outliers[0].values.size() == 2);
  CHECK(s.outliers[0].values[0].value == "570");
  CHECK(s.outliers[0].values[0].nodes == std::vector<std::string>{"gpu3"});
  CHECK(s.outliers[0].values[1].count == 4);
}

TEST_CASE("a reference: a report, or a small object of fact values; anything else is refused", "[fleet][outliers]") {
  gd::FleetFactSelection s = gd::FleetFactSelection::curated();
  auto from_report = gd::read_fleet_reference(gd::test::replayed_report_json("h200-live-ml", "good", ""), s);
  REQUIRE(from_report);
  CHECK(from_report->at(*s.find("kmod.nvidia.version")) == "580.159.04");

  gd::FleetFactSelection small = gd::FleetFactSelection::curated();
  std::size_t curated = small.keys().size();
  auto values = gd::read_fleet_reference(
      R"({"kmod.nvidia.version": "580.95.05", "kmod.nvidia_peermem.loaded": true, "cuda.device_count": 8,
          "wheels.nvidia[nvidia-nccl*]": ["nvidia-nccl-cu12 2.21.5"], "system.glibc_version": "2.39"})",
      small);
  REQUIRE(values);
  CHECK(small.keys().size() == curated + 1);  // a fact the layers do not compare joins
  CHECK(values->size() == small.keys().size());
  CHECK(values->at(*small.find("kmod.nvidia.version")) == "580.95.05");
  CHECK(values->at(*small.find("kmod.nvidia_peermem.loaded")) == "true");
  CHECK(values->at(*small.find("cuda.device_count")) == "8");
  CHECK(values->at(*small.find("wheels.nvidia[nvidia-nccl*]")) == "nvidia-nccl-cu12 2.21.5");
  CHECK(values->at(*small.find("system.glibc_version")) == "2.39");
  CHECK_FALSE(values->at(*small.find("torch.version")));  // not given: the majority decides

  for (const char* bad : {"", "not json", "[1, 2]", "{}", R"({"host.name": "gpu1"})", R"({"kmod.nvidia.version": null})",
                          R"({"kmod.nvidia.version": {"a": 1}})", R"({"format": "gpudoctor-capture", "schema_version": 1})",
                          R"({"schema_version": 99, "findings": []})"}) {
    gd::FleetFactSelection t = gd::FleetFactSelection::curated();
    INFO(bad);
    auto refused = gd::read_fleet_reference(bad, t);
    REQUIRE_FALSE(refused);
    CHECK_FALSE(refused.error().empty());
  }
}

}  // namespace GD_UNITY_ID
