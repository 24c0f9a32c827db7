// The --format rows (report/render_formats): their words and order (--format's help lists them),
// which one carries the capture, and that --redact reaches every format at its own stage.

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"

#include <string>
#include <vector>

#include "report/render_formats.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

gd::Report report_of(const std::string& host) {
  gd::Report r;
  r.run = gd::RunInfo{"0.1.0", gd::RunMode::live, "/", 812, 0, host, gd::RunScope::all, ""};
  r.facts.set("host.name"_fact, host, "uname");
  gd::Finding f;
  f.id = "devices.uvm-missing";
  f.severity = gd::Severity::error;
  f.area = "devices";
  f.title = "/dev/nvidia-uvm is missing on " + host;
  f.message = "no /dev/nvidia-uvm on " + host;
  r.findings.push_back(f);
  return r;
}

}  // namespace

TEST_CASE("render formats: the words, in --format's order, each found by its word", "[report][render_formats]") {
  std::vector<std::string> names;
  for (const gd::RenderFormat& format : gd::render_formats()) {
    names.emplace_back(format.name);
    CHECK(gd::find_render_format(format.name) == &format);
  }
  CHECK(names == std::vector<std::string>{"text", "json", "npd", "prometheus", "markdown"});
  CHECK(gd::find_render_format("yaml") == nullptr);
  CHECK(gd::find_render_format("JSON") == nullptr);
  CHECK(gd::find_render_format("") == nullptr);
}

TEST_CASE("render formats: only JSON carries the capture", "[report][render_formats]") {
  for (const gd::RenderFormat& format : gd::render_formats()) {
    INFO(format.name);
    CHECK(format.needs_capture == (format.name == "json"));
  }
}

TEST_CASE("render formats: each prints the report, and --redact takes the host name out of every one",
          "[report][render_formats]") {
  const std::string host = "gpu-node-17";
  gd::Report report = report_of(host);
  gd::Redactor redactor = gd::Redactor::for_facts(report.facts);
  gd::RenderSettings settings;
  settings.finished_unix_s = 1.5e9;
  for (const gd::RenderFormat& format : gd::render_formats()) {
    INFO(format.name);
    std::string plain = gd::render_in_format(format, report, settings, nullptr);
    CHECK(plain.find("uvm-missing") != std::string::npos);
    // The metrics name rules, never a finding's words: there is no host name to take out.
    CHECK((plain.find(host) != std::string::npos) == (format.name != "prometheus"));
    std::string redacted = gd::render_in_format(format, report, settings, &redactor);
    CHECK(redacted.find("uvm-missing") != std::string::npos);
    CHECK(redacted.find(host) == std::string::npos);
  }
}

TEST_CASE("render formats: JSON's render is the document, and a redacted one names no host", "[report][render_formats]") {
  gd::Report report = report_of("a");  // too short to be replaced wherever it appears
  gd::Redactor redactor = gd::Redactor::for_facts(report.facts);
  std::string text = gd::render_in_format(*gd::find_render_format("json"), report, gd::RenderSettings{}, &redactor);
  REQUIRE(text.ends_with("}\n"));
  nlohmann::json json = nlohmann::json::parse(text);
  CHECK(json["run"]["host"] == "<host>");
  CHECK(json["run"]["mode"] == "live");
}

}  // namespace GD_UNITY_ID
