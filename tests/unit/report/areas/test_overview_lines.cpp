// The overview's lines come from the layer table (core/all_layers.hpp): one line per layer that
// findings can name, with the row's id and title, answering for the row's areas.

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/all_layers.hpp"
#include "core/overview.hpp"
#include "report/report.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

TEST_CASE("overview lines: every layer with rule areas has one line, and only those", "[report][areas][layers]") {
  for (const gd::Layer& layer : gd::all_layers()) {
    INFO(layer.id);
    // A layer whose findings had no line would show them under "Other" only.
    CHECK((layer.overview != nullptr) == (layer.areas.size() > 0));
  }
}

TEST_CASE("overview lines: each line carries its row's id and title and claims its row's areas", "[report][areas][layers]") {
  std::vector<gd::Finding> findings;
  for (const gd::Layer& layer : gd::all_layers()) {
    for (std::string_view area : layer.areas) {
      gd::Finding finding;
      finding.id = "test." + std::string(area);
      finding.area = std::string(area);
      finding.severity = gd::Severity::error;
      findings.push_back(finding);
    }
  }
  std::vector<gd::AreaLine> lines = gd::build_area_lines(gd::FactSet{}, findings);
  std::size_t next = 0;
  for (const gd::Layer& layer : gd::all_layers()) {
    if (layer.areas.size() == 0) continue;
    INFO(layer.id);
    REQUIRE(next < lines.size());
    CHECK(lines[next].id == layer.id);  // in the table's order
    CHECK(lines[next].title == layer.title);
    ++next;
  }
  CHECK(next == lines.size());  // every area claimed: no "Other" line
  // Each line's status counts its own areas' findings (cuda and nvml say "skipped" without the
  // helper's facts, whatever the findings).
  for (const gd::Layer& layer : gd::all_layers()) {
    if (!layer.overview) continue;
    INFO(layer.id);
    CHECK(gd::areas::worst_finding_status(findings, layer) == gd::AreaStatus::error);
    CHECK(gd::areas::worst_finding_status({}, layer) == gd::AreaStatus::ok);
  }
}

}  // namespace GD_UNITY_ID
