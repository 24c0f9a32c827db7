// The fleet's text table and its JSON contract (README "Fleet JSON").
#include "fleet/fleet_render.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using nlohmann::json;

namespace {

gd::FleetSummary sample() {
  gd::FleetSummary s;
  s.nodes = 7;
  s.reports = 8;
  gd::FleetGroup healthy{std::nullopt, "ok", "no problems found", "none", "", {"n1", "n2", "n3", "n4", "n5"}};
  gd::FleetGroup uvm{"devices.uvm-wrong-major", "error", "/dev/nvidia-uvm does not lead to the driver", "fix-config",
                     "sudo nvidia-modprobe -c 0 -u", {"n6"}};
  gd::FleetGroup evil{"x.\x1b[2Jevil", "warning", "t", "reboot", "rm -rf /\nreboot", {"n\x07" "7"}};
  s.groups = {healthy, uvm, evil};
  s.duplicates = {{"n6", "b/n6.json", {"a/n6.json"}}};
  s.unreadable = {{"bad.json", "not valid JSON: parse error at line 1, column 1"}};
  return s;
}

}  // namespace

TEST_CASE("fleet text: one row per group with count, cause, severity, action, names and first fix", "[fleet][render]") {
  std::string text = gd::render_fleet_text(sample(), {});
  CHECK(text.starts_with("7 nodes (8 reports): 5 healthy, 2 with 2 root causes\n\n"));
  CHECK(text.find("NODES  ROOT CAUSE               SEVERITY  ACTION      NODE NAMES        FIRST FIX STEP\n") !=
        std::string::npos);
  CHECK(text.find("    5  healthy                  ok        none        n1 n2 n3 +2 more  -\n") != std::string::npos);
  CHECK(text.find("    1  devices.uvm-wrong-major  error     fix-config  n6                sudo nvidia-modprobe -c 0 -u\n") !=
        std::string::npos);
  // Control characters from a report never reach the terminal.
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  // They are shown escaped (util/terminal_text.hpp), as in the report's text.
  CHECK(text.find("x.\\x1b[2Jevil") != std::string::npos);
  CHECK(text.find("rm -rf /\\nreboot") != std::string::npos);
  CHECK(text.find("n\\x077") != std::string::npos);
  CHECK(text.find("1 node reported more than once; the newer report counts:\n  n6: b/n6.json counts, not a/n6.json\n") !=
        std::string::npos);
  CHECK(text.find("1 input could not be read:\n  bad.json: not valid JSON: parse error at line 1, column 1\n") !=
        std::string::npos);
  // -v lists every node of a group beyond the few of its row.
  CHECK(gd::render_fleet_text(sample(), {true}).find("nodes: n1 n2 n3 n4 n5\n") != std::string::npos);
}

TEST_CASE("fleet text: --scope node says so; nothing read says so", "[fleet][render]") {
  gd::FleetSummary s = sample();
  s.scope = gd::CauseScope::node;
  CHECK(gd::render_fleet_text(s, {}).find("(the node's findings only: --scope node)") != std::string::npos);
  gd::FleetSummary empty;
  empty.unreadable = {{"-", "empty: no report in it"}};
  CHECK(gd::render_fleet_text(empty, {}) ==
        "0 nodes (0 reports): 0 healthy, 0 with 0 root causes\n\n1 input could not be read:\n  -: empty: no report in it\n");
}

TEST_CASE("fleet json: the versioned contract", "[fleet][render]") {
  json j = gd::render_fleet_json(sample());
  CHECK(j["fleet_schema_version"] == 1);
  CHECK(j["gpudoctor_version"] == GD_VERSION);
  CHECK(j["scope"] == "all");
  CHECK(j["nodes"] == 7);
  CHECK(j["reports"] == 8);
  REQUIRE(j["groups"].size() == 3);
  CHECK(j["groups"][0] == json{{"root_cause", nullptr}, {"severity", "ok"}, {"title", "no problems found"},
                               {"action", "none"}, {"first_fix", ""}, {"count", 5},
                               {"nodes", {"n1", "n2", "n3", "n4", "n5"}}});
  CHECK(j["groups"][1]["root_cause"] == "devices.uvm-wrong-major");
  CHECK(j["groups"][1]["count"] == 1);
  CHECK(j["groups"][2]["root_cause"] == "x.\x1b[2Jevil");  // JSON escapes, it does not alter
  CHECK(j["duplicates"] == json::array({{{"node", "n6"}, {"counted", "b/n6.json"}, {"ignored", {"a/n6.json"}}}}));
  CHECK(j["unreadable"] ==
        json::array({{{"path", "bad.json"}, {"reason", "not valid JSON: parse error at line 1, column 1"}}}));
}

}  // namespace GD_UNITY_ID
