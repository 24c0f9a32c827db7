// The work of `gpudoctor fleet` on one unit (cli/fleet_work): a file handed over unread is read
// by the thread that works on it, whole when small; one that grew past the whole-file bound after
// it was opened is read on as a stream there, and its reports are the same as the splitter's.
#include "cli/fleet_work.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "replayed_reports.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

// The hosts its reports name with their lines, in order; problems as "problem:<line>:<reason>".
std::vector<std::string> reports_of(const gd::FleetUnit& unit) {
  std::vector<std::string> out;
  for (const gd::FleetEvent& event : unit.events) {
    if (event.kind == gd::FleetEvent::Kind::report) {
      out.push_back(event.digest ? event.digest->host + "@" + std::to_string(event.line) : "none:" + event.text);
    } else if (event.kind == gd::FleetEvent::Kind::problem) {
      // its reason's words up to the first '(' (then a count of bytes)
      out.push_back("problem:" + std::to_string(event.line) + ":" + event.text.substr(0, event.text.find(" (")));
    }
  }
  return out;
}

std::string compact(const std::string& report) { return nlohmann::json::parse(report).dump() + "\n"; }

}  // namespace

TEST_CASE("fleet work: a small file is read whole by the thread that works on it", "[fleet][fleet_work]") {
  gd::test::TempTree tree;
  tree.file("/one.json", gd::test::replayed_report_json("h200-live-ml", "gpu7"));
  tree.file("/two.jsonl", compact(gd::test::replayed_report_json("h200-live-ml", "gpu1")) +
                              compact(gd::test::replayed_report_json("h200-live-ml", "gpu2")));
  auto selection = gd::FleetFactSelection::curated();
  for (auto [path, expected] : {std::pair{"/one.json", std::vector<std::string>{"gpu7@1"}},
                                std::pair{"/two.jsonl", std::vector<std::string>{"gpu1@1", "gpu2@2"}}}) {
    gd::FleetUnit unit;
    unit.work = gd::FleetUnit::Work::read_file;
    auto file = gd::InputStream::open_file(tree.at(path));
    REQUIRE(file);
    unit.file = std::move(*file);
    gd::do_work(unit, selection);
    CHECK(reports_of(unit) == expected);
    CHECK_FALSE(unit.file.has_value());  // closed once read
    REQUIRE_FALSE(unit.events.empty());
    CHECK(unit.events.back().kind == gd::FleetEvent::Kind::input_ends);
  }
}

TEST_CASE("fleet work: a file that grew past the whole-file bound after it was opened is read on as a stream",
          "[fleet][fleet_work]") {
  gd::test::TempTree tree;
  const std::string report = compact(gd::test::replayed_report_json("h200-live-ml", "gpu1"));
  tree.file("/grows.jsonl", report);
  auto file = gd::InputStream::open_file(tree.at("/grows.jsonl"));
  REQUIRE(file);
  REQUIRE(*file->size_at_open() == report.size());
  // Written after the open (as a collector still appending would): now past the bound, with a
  // truncated report at its end.
  std::size_t count = 1;
  {
    std::ofstream out(tree.at("/grows.jsonl"), std::ios::app | std::ios::binary);
    for (std::size_t size = report.size(); size <= gd::k_fleet_whole_file_bytes + 2 * report.size(); size += report.size()) {
      out << report;
      ++count;
    }
    out << report.substr(0, 100);
  }
  gd::FleetUnit unit;
  unit.work = gd::FleetUnit::Work::read_file;
  unit.file = std::move(*file);
  gd::do_work(unit, gd::FleetFactSelection{});
  std::vector<std::string> expected;
  for (std::size_t i = 1; i <= count; ++i) expected.push_back("gpu1@" + std::to_string(i));
  expected.push_back("problem:" + std::to_string(count + 1) + ":truncated: the input ends inside this report");
  CHECK(reports_of(unit) == expected);
  CHECK(unit.text.size() <= gd::k_fleet_chunk_bytes);  // the rest went through a chunk at a time
}

}  // namespace GD_UNITY_ID
