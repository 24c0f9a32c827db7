// Grouping a fleet: real reports (replays of the captured hosts under many node names) fall into
// one group per root cause, largest first; the newer of two reports of a node counts; reports
// without a node name stay apart; --scope node groups by the node's own findings.
#include "fleet/fleet_tally.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "fleet/report_digest.hpp"
#include "replayed_reports.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

gd::ReportDigest digest_of(const std::string& capture, const std::string& node, const std::string& started = "",
                           bool scope_node = false) {
  auto digest = gd::digest_report(gd::test::replayed_report_json(capture, node, started, scope_node));
  REQUIRE(digest);
  return *digest;
}

gd::ReportDigest synthetic(const std::string& host, std::vector<gd::DigestFinding> findings, std::string started = "") {
  gd::ReportDigest d;
  d.schema_version = 1;
  d.host = host;
  d.started = std::move(started);
  d.findings = std::move(findings);
  return d;
}

const gd::FleetGroup* group(const gd::FleetSummary& s, const std::optional<std::string>& cause) {
  for (const gd::FleetGroup& g : s.groups) {
    if (g.root_cause == cause) return &g;
  }
  return nullptr;
}

const std::string k_uvm = "lxc-stale-uvm-major";          // a node problem
const std::string k_healthy = "h200-container-580.159.04";  // no problem at all
const std::string k_firmware = "blackwell-firmware-missing";

}  // namespace

TEST_CASE("tally: replayed hosts under many names group by their first finding, largest first", "[fleet][tally]") {
  gd::FleetTally tally(gd::CauseScope::all);
  for (int i = 1; i <= 12; ++i) tally.add_report("r/h" + std::to_string(i), digest_of(k_healthy, "node" + std::to_string(i)));
  for (int i = 20; i <= 24; ++i) tally.add_report("r/u" + std::to_string(i), digest_of(k_uvm, "node" + std::to_string(i)));
  tally.add_report("r/f", digest_of(k_firmware, "node100"));
  gd::FleetSummary s = tally.summary();
  CHECK(s.nodes == 18);
  CHECK(s.reports == 18);
  REQUIRE(s.groups.size() == 3);

  const gd::Report uvm = gd::test::replayed_report(k_uvm);
  const gd::Report firmware = gd::test::replayed_report(k_firmware);
  CHECK_FALSE(s.groups[0].root_cause);  // healthy, 12
  CHECK(s.groups[0].severity == "ok");
  CHECK(s.groups[0].action == "none");
  CHECK(s.groups[0].nodes.size() == 12);
  CHECK(s.groups[0].nodes[0] == "node1");
  CHECK(s.groups[0].nodes[1] == "node2");  // natural order: node2 before node10
  CHECK(s.groups[0].nodes[9] == "node10");
  REQUIRE(s.groups[1].root_cause);
  CHECK(*s.groups[1].root_cause == uvm.findings.at(0).id);
  CHECK(s.groups[1].severity == gd::to_string(uvm.findings[0].severity));
  CHECK(s.groups[1].title == uvm.findings[0].title);
  CHECK(s.groups[1].action == gd::to_string(uvm.findings[0].action));
  CHECK(s.groups[1].first_fix == uvm.findings[0].fix.at(0));
  CHECK(s.groups[1].nodes == std::vector<std::string>{"node20", "node21", "node22", "node23", "node24"});
  REQUIRE(s.groups[2].root_cause);
  CHECK(*s.groups[2].root_cause == firmware.findings.at(0).id);
  CHECK(s.groups[2].nodes == std::vector<std::string>{"node100"});
  CHECK(s.duplicates.empty());
}

TEST_CASE("tally: of two reports of one node the newer counts, whatever the order read", "[fleet][tally]") {
  for (bool newer_first : {true, false}) {
    gd::FleetTally tally(gd::CauseScope::all);
    auto older = [&] { tally.add_report("old.json", digest_of(k_uvm, "node7", "2026-11-30T08:00:00.000Z")); };
    auto newer = [&] { tally.add_report("new.json", digest_of(k_healthy, "node7", "2026-12-01T08:00:00.000Z")); };
    if (newer_first) {
      newer();
      older();
    } else {
      older();
      newer();
    }
    gd::FleetSummary s = tally.summary();
    CHECK(s.nodes == 1);
    CHECK(s.reports == 2);
    REQUIRE(s.groups.size() == 1);
    CHECK_FALSE(s.groups[0].root_cause);  // the newer report is healthy: the node was repaired
    REQUIRE(s.duplicates.size() == 1);
    CHECK(s.duplicates[0].node == "node7");
    CHECK(s.duplicates[0].counted == "new.json");
    CHECK(s.duplicates[0].ignored == std::vector<std::string>{"old.json"});
  }
}

TEST_CASE("tally: without run.started the report read later counts; with beats without", "[fleet][tally]") {
  gd::FleetTally tally(gd::CauseScope::all);
  tally.add_report("a", digest_of(k_healthy, "n1"));
  tally.add_report("b", digest_of(k_uvm, "n1"));
  tally.add_report("c", digest_of(k_uvm, "n2", "2026-12-01T08:00:00Z"));
  tally.add_report("d", digest_of(k_healthy, "n2"));  // no time: older than c
  gd::FleetSummary s = tally.summary();
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].nodes == std::vector<std::string>{"n1", "n2"});
  CHECK(s.groups[0].root_cause.has_value());
  REQUIRE(s.duplicates.size() == 2);
  CHECK(s.duplicates[0].counted == "b");
  CHECK(s.duplicates[1].counted == "c");
  CHECK(s.duplicates[1].ignored == std::vector<std::string>{"d"});
}

TEST_CASE("tally: redacted or nameless reports are each a node, named by where they were read", "[fleet][tally]") {
  gd::FleetTally tally(gd::CauseScope::all);
  tally.add_report("reports/a.json", digest_of(k_healthy, "<host>"));
  tally.add_report("reports/b.json", digest_of(k_healthy, "<host>"));
  tally.add_report("-:120", digest_of(k_healthy, ""));
  gd::FleetSummary s = tally.summary();
  CHECK(s.nodes == 3);
  CHECK(s.duplicates.empty());
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].nodes == std::vector<std::string>{"-:120", "reports/a.json", "reports/b.json"});
}

TEST_CASE("tally: --scope node groups by the first finding that is the node's", "[fleet][tally]") {
  gd::DigestFinding env{"cuda.visible-devices-hides-gpus", "error", "environment", "fix-environment", "hidden", "unset"};
  gd::DigestFinding node{"nvml.row-remap-pending", "warning", "node", "reset-gpu", "remap", "nvidia-smi -r"};
  gd::DigestFinding note{"nvml.persistence-off", "info", "node", "none", "note", ""};
  gd::ReportDigest both = synthetic("n1", {env, node});
  gd::ReportDigest env_only = synthetic("n2", {env, note});
  CHECK(gd::root_cause_of(both, gd::CauseScope::all)->id == env.id);
  CHECK(gd::root_cause_of(both, gd::CauseScope::node)->id == node.id);
  CHECK(gd::root_cause_of(env_only, gd::CauseScope::node) == nullptr);  // an info is no root cause
  CHECK(gd::root_cause_of(synthetic("n3", {note}), gd::CauseScope::all) == nullptr);

  gd::FleetTally all(gd::CauseScope::all);
  gd::FleetTally node_scope(gd::CauseScope::node);
  for (gd::FleetTally* t : {&all, &node_scope}) {
    t->add_report("1", both);
    t->add_report("2", env_only);
    // A report made with --scope node has only the node's findings: the same group either way.
    t->add_report("3", digest_of(k_uvm, "n3", "", /*scope_node=*/true));
  }
  gd::FleetSummary a = all.summary();
  gd::FleetSummary n = node_scope.summary();
  REQUIRE(group(a, env.id));
  CHECK(group(a, env.id)->nodes.size() == 2);
  CHECK_FALSE(group(n, env.id));
  REQUIRE(group(n, node.id));
  REQUIRE(group(n, std::nullopt));
  CHECK(group(n, std::nullopt)->nodes == std::vector<std::string>{"n2"});
  std::string uvm = gd::test::replayed_report(k_uvm, true).findings.at(0).id;
  CHECK(group(a, uvm)->nodes == std::vector<std::string>{"n3"});
  CHECK(group(n, uvm)->nodes == std::vector<std::string>{"n3"});
}

TEST_CASE("tally: ties in size go to the graver group, then by id", "[fleet][tally]") {
  gd::FleetTally tally(gd::CauseScope::all);
  tally.add_report("1", synthetic("a", {{"z.warn", "warning", "node", "reboot", "", ""}}));
  tally.add_report("2", synthetic("b", {{"y.err", "error", "node", "reboot", "", ""}}));
  tally.add_report("3", synthetic("c", {{"x.err", "error", "node", "reboot", "", ""}}));
  tally.add_report("4", synthetic("d", {}));
  tally.add_unreadable("bad.json", "not valid JSON");
  gd::FleetSummary s = tally.summary();
  REQUIRE(s.groups.size() == 4);
  CHECK(*s.groups[0].root_cause == "x.err");
  CHECK(*s.groups[1].root_cause == "y.err");
  CHECK(*s.groups[2].root_cause == "z.warn");
  CHECK_FALSE(s.groups[3].root_cause);
  REQUIRE(s.unreadable.size() == 1);
  CHECK(s.unreadable[0].path == "bad.json");
}

}  // namespace GD_UNITY_ID
