// --format npd: node-problem-detector's custom plugin protocol (one line of at most 80 bytes).

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"
#include "report/render_npd.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Finding;
using gd::Report;
using gd::Severity;

namespace {

Finding finding(std::string id, Severity severity, std::string title) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.title = std::move(title);
  return f;
}

}  // namespace

TEST_CASE("npd: the first problem's id and title, or a healthy line", "[report][render_npd]") {
  Report r;
  CHECK(gd::render_npd(r, Severity::error) == "no problems found\n");
  r.run.scope = gd::RunScope::node;
  CHECK(gd::render_npd(r, Severity::error) == "no node problems found\n");
  r.findings = {finding("nvml.persistence-off", Severity::info, "Persistence mode is off"),
                finding("nvml.row-remap-pending", Severity::warning, "Row remapping waits for a reset"),
                finding("xid.fallen-off-bus", Severity::error, "A GPU has fallen off the bus")};
  // Findings come root cause first; notes never count, warnings only with --fail-on warning.
  CHECK(gd::render_npd(r, Severity::error) == "xid.fallen-off-bus: A GPU has fallen off the bus\n");
  CHECK(gd::render_npd(r, Severity::warning) == "nvml.row-remap-pending: Row remapping waits for a reset\n");
}

TEST_CASE("npd: the line fits NPD's 80 bytes, cut on a UTF-8 boundary", "[report][render_npd]") {
  Report r;
  // "é" is two bytes; the cut must not split one.
  std::string title(56, 'x');  // "cuda.init-failed: " is 18 bytes: the 77-byte cut falls inside the second "é"
  title += "ééééé tail";
  r.findings = {finding("cuda.init-failed", Severity::error, title)};
  std::string line = gd::render_npd(r, Severity::error);
  REQUIRE(line.back() == '\n');
  line.pop_back();
  CHECK(line.size() <= gd::k_npd_max_line);
  CHECK(line.size() >= gd::k_npd_max_line - 4);
  CHECK(line.ends_with("..."));
  CHECK(line.starts_with("cuda.init-failed: xxx"));
  std::string body = line.substr(0, line.size() - 3);
  CHECK((static_cast<unsigned char>(body.back()) & 0xC0) != 0xC0);  // no lead byte left without its tail
  std::size_t last_lead = body.rfind('\xc3');
  REQUIRE(last_lead != std::string::npos);
  CHECK(body.size() - last_lead == 2);  // the last "é" is whole
}

TEST_CASE("npd: one line even when a title holds a newline", "[report][render_npd]") {
  Report r;
  r.findings = {finding("site.check", Severity::error, "first\nsecond")};
  CHECK(gd::render_npd(r, Severity::error) == "site.check: first second\n");
}

TEST_CASE("npd: a health check never fails on an unconfirmed finding, and says what it did not prove",
          "[report][render_npd]") {
  Report r;
  r.run.scope = gd::RunScope::node;
  Finding guess = finding("hardware.gpu-newer-than-driver", Severity::error, "The driver is older than the GPU");
  guess.confirmed = false;
  r.findings = {guess};
  CHECK(gd::render_npd(r, Severity::error) == "no node problems found; 1 unconfirmed\n");
  r.facts.set("cuda.context.busy_count"_fact, std::int64_t{2});
  CHECK(gd::render_npd(r, Severity::error) ==
        "no node problems found; 2 GPU(s) busy, not proven; 1 unconfirmed\n");
  // Without --scope node the run is the user's own: the finding is their problem, confirmed or not.
  r.run.scope = gd::RunScope::all;
  CHECK(gd::render_npd(r, Severity::error) == "hardware.gpu-newer-than-driver: The driver is older than the GPU\n");
  // A confirmed error still fails the node, first.
  r.run.scope = gd::RunScope::node;
  r.findings.push_back(finding("xid.fallen-off-bus", Severity::error, "A GPU has fallen off the bus"));
  CHECK(gd::render_npd(r, Severity::error) == "xid.fallen-off-bus: A GPU has fallen off the bus\n");
}

}  // namespace GD_UNITY_ID
