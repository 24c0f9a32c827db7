// The scrub of a report on its way out (report/report_scrub, json_scrub) and of metrics labels:
// tokens of a known shape go, and nothing else of a real report changes.
#include "core/fact_key.hpp"
#include "report/report_scrub.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include "report/json_scrub.hpp"
#include "report/prometheus_text.hpp"
#include "report/render_json.hpp"
#include "replayed_reports.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

constexpr std::string_view k_hf = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh";
constexpr std::string_view k_aws = "AKIAIOSFODNN7EXAMPLE";

/// The report of a captured host as `gpudoctor replay FILE --json` makes it, capture included.
gd::Report report_with_capture(const std::string& name) {
  gd::ReplayHost replay(gd::test::host_capture(name));
  gd::Options options;
  options.root = replay.capture().root;
  options.probe.python_path = replay.capture().python_option;
  options.probe.extension_paths = replay.capture().extension_options;
  options.capture = true;
  options.format = "json";  // only --json keeps the capture
  gd::RunInfo run;
  run.gpudoctor_version = GD_VERSION;
  run.mode = gd::RunMode::replay;
  run.source = name;
  return gd::run_pipeline(replay, options, gd::test::repository_rule_set(), run);
}

}  // namespace

TEST_CASE("report scrub: no real capture's report changes", "[report][secrets]") {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(gd::test::test_hosts_dir())) {
    std::string file = entry.path().filename().string();
    if (!file.ends_with(".capture.json")) continue;
    std::string name = file.substr(0, file.size() - std::string_view(".capture.json").size());
    INFO(name);
    gd::Report report = report_with_capture(name);
    REQUIRE(report.capture);
    CHECK(gd::render_json(gd::scrub_report_secrets(report)) == gd::render_json(report));
    ++seen;
  }
  CHECK(seen >= 10);
}

TEST_CASE("report scrub: a token in findings, facts, overview and capture goes, the rest stays", "[report][secrets]") {
  gd::Report report = report_with_capture("h200-live-cvd99");
  REQUIRE(!report.findings.empty());
  REQUIRE(report.capture);
  std::string hf(k_hf);
  report.run.host = "node-" + std::string(k_aws);
  report.findings[0].message += " " + hf;
  report.findings[0].fix.push_back("pip install --index-url https://u:hunter2@pypi.example.com/simple torch");
  report.findings[0].evidence.push_back({"env.ld_library_path"_fact, "/opt/" + hf + "/lib", "env:LD_LIBRARY_PATH"});
  report.facts.put({"env.ld_library_path"_fact, gd::FactType::string, gd::FactState::present, "/opt/" + hf + "/lib", "", "env:LD_LIBRARY_PATH"});
  report.areas.at(0).details.push_back(std::string(k_aws));
  (*report.capture)["paths"]["/opt/" + hf] = nlohmann::json{{"read", {{"lines", {std::string(k_aws)}}}}};

  gd::Report scrubbed = gd::scrub_report_secrets(report);
  std::string text = gd::render_json(scrubbed).dump();
  CHECK(text.find(k_hf) == std::string::npos);
  CHECK(text.find(k_aws) == std::string::npos);
  CHECK(text.find("hunter2") == std::string::npos);
  CHECK(scrubbed.run.host == "<secret>");
  CHECK(scrubbed.facts.get_string("env.ld_library_path"_fact) == "/opt/<secret>/lib");
  CHECK(scrubbed.findings[0].fix.back() == "pip install --index-url https://u:<secret>@pypi.example.com/simple torch");
  CHECK(scrubbed.capture->at("paths").contains("/opt/<secret>"));
  // Everything else as it was.
  CHECK(scrubbed.findings[0].id == report.findings[0].id);
  CHECK(scrubbed.facts.all().size() == report.facts.all().size());
  CHECK(scrubbed.facts.get_string("env.cuda_visible_devices"_fact) == report.facts.get_string("env.cuda_visible_devices"_fact));
}

TEST_CASE("json scrub: values and keys, at any depth", "[report][secrets]") {
  nlohmann::json doc = {{"a", {1, "x " + std::string(k_hf), true}},
                        {std::string(k_aws), {{"uuid", "GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad"}}},
                        {"git", "70d99e998b4955e0049d13a98d77ae1b14db1f45"}};
  gd::scrub_json_secrets(doc);
  CHECK(doc["a"][1] == "x <secret>");
  CHECK(doc.contains("<secret>"));
  CHECK(!doc.contains(std::string(k_aws)));
  CHECK(doc["<secret>"]["uuid"] == "GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad");
  CHECK(doc["git"] == "70d99e998b4955e0049d13a98d77ae1b14db1f45");

  // 200,000 levels: walked without recursion.
  nlohmann::json deep = nlohmann::json::array();
  nlohmann::json* at = &deep;
  for (int i = 0; i < 200000; ++i) {
    at->push_back(nlohmann::json::array());
    at = &at->back();
  }
  at->push_back(std::string(k_hf));
  gd::scrub_json_secrets(deep);
  CHECK(at->at(0) == "<secret>");
}

TEST_CASE("prometheus: a label value holds no token, a GPU UUID stays", "[report][secrets][prometheus]") {
  gd::PromWriter out;
  out.family("gpudoctor_gpu_busy", "gauge", "help");
  out.sample({{"uuid", std::string(k_hf)}, {"bus_id", "0000:00:06.0"}}, "0");
  out.sample({{"uuid", "GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad"}, {"driver", "https://u:pw@host/x"}}, "0");
  CHECK(out.text().find(k_hf) == std::string::npos);
  CHECK(out.text().find("uuid=\"<secret>\",bus_id=\"0000:00:06.0\"") != std::string::npos);
  CHECK(out.text().find("uuid=\"GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad\",driver=\"https://u:<secret>@host/x\"") !=
        std::string::npos);
}

}  // namespace GD_UNITY_ID
