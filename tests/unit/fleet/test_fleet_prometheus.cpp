// gpudoctor fleet --format prometheus: the fleet families of README's "Fleet metrics" table,
// their labels and values (fleet/fleet_prometheus).
#include "fleet/fleet_prometheus.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

std::vector<std::string> lines_of(const std::string& text, const std::string& family) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.starts_with(family + " ") || line.starts_with(family + "{")) out.push_back(line);
  }
  return out;
}

gd::FleetSummary sample() {
  gd::FleetSummary s;
  s.nodes = 9;
  s.reports = 10;
  s.groups = {{std::nullopt, "ok", "no problems found", "none", "", {"n1", "n2", "n3", "n4", "n5"}},
              {"devices.uvm-wrong-major", "error", "t", "fix-config", "fix", {"n6", "n7"}},
              {"cuda.gpu-stuck", "error", "t", "reset-gpu", "fix", {"n8"}},
              {"x\"evil\\\n", "warning", "t", "reboot", "", {"n9"}}};
  s.duplicates = {{"n6", "b/n6.json", {"a/n6.json"}}};
  s.unreadable = {{"bad.json", "not valid JSON"}, {"-:3", "truncated"}};
  return s;
}

}  // namespace

TEST_CASE("fleet metrics: nodes by verdict, one sample per group, the reading's counts", "[fleet][prometheus]") {
  std::string text = gd::render_fleet_prometheus(sample(), {}, 1700000000.25);
  CHECK(lines_of(text, "gpudoctor_fleet_info") ==
        std::vector<std::string>{"gpudoctor_fleet_info{version=\"" GD_VERSION "\",metrics_version=\"1\",scope=\"all\"} 1"});
  CHECK(lines_of(text, "gpudoctor_fleet_last_run_timestamp_seconds") ==
        std::vector<std::string>{"gpudoctor_fleet_last_run_timestamp_seconds 1700000000.250"});
  CHECK(lines_of(text, "gpudoctor_fleet_nodes") == std::vector<std::string>{"gpudoctor_fleet_nodes{verdict=\"healthy\"} 5",
                                                                           "gpudoctor_fleet_nodes{verdict=\"warning\"} 1",
                                                                           "gpudoctor_fleet_nodes{verdict=\"error\"} 3"});
  // The healthy group has an empty root cause, severity ok, action none; a report's id is escaped.
  CHECK(lines_of(text, "gpudoctor_fleet_group_nodes") ==
        std::vector<std::string>{
            "gpudoctor_fleet_group_nodes{root_cause=\"\",severity=\"ok\",action=\"none\"} 5",
            "gpudoctor_fleet_group_nodes{root_cause=\"devices.uvm-wrong-major\",severity=\"error\",action=\"fix-config\"} 2",
            "gpudoctor_fleet_group_nodes{root_cause=\"cuda.gpu-stuck\",severity=\"error\",action=\"reset-gpu\"} 1",
            "gpudoctor_fleet_group_nodes{root_cause=\"x\\\"evil\\\\\\n\",severity=\"warning\",action=\"reboot\"} 1"});
  CHECK(lines_of(text, "gpudoctor_fleet_reports") == std::vector<std::string>{"gpudoctor_fleet_reports 10"});
  CHECK(lines_of(text, "gpudoctor_fleet_duplicate_nodes") == std::vector<std::string>{"gpudoctor_fleet_duplicate_nodes 1"});
  CHECK(lines_of(text, "gpudoctor_fleet_unreadable_inputs") == std::vector<std::string>{"gpudoctor_fleet_unreadable_inputs 2"});
  // Node names never become labels.
  CHECK(text.find("n6") == std::string::npos);
  CHECK(text.find("bad.json") == std::string::npos);
}

TEST_CASE("fleet metrics: every family in the contract's order, with HELP and TYPE gauge", "[fleet][prometheus]") {
  std::string text = gd::render_fleet_prometheus(sample(), {}, 0);
  std::size_t at = 0;
  for (const gd::PromFamily& f : gd::fleet_prometheus_families()) {
    std::string type = "# TYPE " + std::string(f.name) + " gauge\n";
    std::size_t found = text.find(type);
    REQUIRE(found != std::string::npos);
    CHECK(found >= at);
    at = found;
    CHECK(text.find("# HELP " + std::string(f.name) + " ") != std::string::npos);
  }
  CHECK(gd::fleet_prometheus_families().size() == 8);
}

TEST_CASE("fleet metrics: an empty fleet and a severity a newer gpudoctor may add", "[fleet][prometheus]") {
  std::string empty = gd::render_fleet_prometheus(gd::FleetSummary{}, {}, 0);
  CHECK(lines_of(empty, "gpudoctor_fleet_nodes") == std::vector<std::string>{"gpudoctor_fleet_nodes{verdict=\"healthy\"} 0",
                                                                            "gpudoctor_fleet_nodes{verdict=\"warning\"} 0",
                                                                            "gpudoctor_fleet_nodes{verdict=\"error\"} 0"});
  CHECK(lines_of(empty, "gpudoctor_fleet_group_nodes").empty());
  CHECK(lines_of(empty, "gpudoctor_fleet_outlier_nodes").empty());
  gd::FleetSummary s;
  s.scope = gd::CauseScope::node;
  s.groups = {{"a.b", "critical", "t", "reboot", "", {"n1", "n2"}}};
  std::string text = gd::render_fleet_prometheus(s, {}, 0);
  CHECK(lines_of(text, "gpudoctor_fleet_nodes").back() == "gpudoctor_fleet_nodes{verdict=\"critical\"} 2");
  CHECK(lines_of(text, "gpudoctor_fleet_info").front().find("scope=\"node\"") != std::string::npos);
}

TEST_CASE("fleet metrics: one outlier sample per fact and value", "[fleet][prometheus]") {
  const std::vector<gd::FleetOutlierSample> outliers = {
      {"driver", "580.95.05", 997}, {"driver", "570.86.15", 3}, {"nccl", "2.21.5\"", 1}};
  std::string text = gd::render_fleet_prometheus(sample(), outliers, 0);
  CHECK(lines_of(text, "gpudoctor_fleet_outlier_nodes") ==
        std::vector<std::string>{"gpudoctor_fleet_outlier_nodes{fact=\"driver\",value=\"580.95.05\"} 997",
                                 "gpudoctor_fleet_outlier_nodes{fact=\"driver\",value=\"570.86.15\"} 3",
                                 "gpudoctor_fleet_outlier_nodes{fact=\"nccl\",value=\"2.21.5\\\"\"} 1"});
}

}  // namespace GD_UNITY_ID
