#include "report/render_json.hpp"

#include <catch2/catch.hpp>

#include <string>
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::AreaLine;
using gd::AreaStatus;
using gd::Finding;
using gd::Report;
using gd::Severity;
using nlohmann::json;

namespace {

Finding make_finding(std::string id, Severity severity) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.area = "cuda";
  f.scope = gd::Scope::environment;
  f.action = gd::Action::fix_environment;
  f.title = "CUDA_VISIBLE_DEVICES hides every GPU";
  f.message = "CUDA_VISIBLE_DEVICES=\"99\" names no GPU;\nNVML sees 8 · see below";  // quotes, newline, non-ASCII
  f.why = "CUDA only enumerates the devices the variable lists.";
  f.fix = {"unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0,1"};
  f.references = {"https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"};
  f.evidence = {{"env.cuda_visible_devices"_fact, "99", "env:CUDA_VISIBLE_DEVICES"}, {"cuda.init.result"_fact, "100", "helper:cuInit"}};
  f.consequences = {"cuda/no-device"};
  return f;
}

Report sample_report() {
  Report r;
  r.run = gd::RunInfo{"0.1.0", gd::RunMode::replay, "h200.capture.json", 42, 1000, "gpu-node-17", gd::RunScope::node};
  r.facts.set("cuda.init.result"_fact, std::int64_t{100}, "helper:cuInit");
  r.facts.set_unknown("nvml.init.result"_fact, "needs root", "helper:nvmlInit");
  r.areas = {AreaLine{"cuda", "CUDA driver (libcuda)", AreaStatus::error, "cuInit failed: 100", {"detail"}}};
  r.findings = {make_finding("cuda/visible-devices-hides-all", Severity::error),
                make_finding("env/ld-library-path-stub", Severity::warning),
                make_finding("cuda/slow-init", Severity::info)};
  r.inconclusive = {gd::Inconclusive{"driver/module-too-old", "Kernel module older than libcuda",
                                     {{"kmod.nvidia.version"_fact, "unknown (needs root)", "/proc/driver/nvidia/version"}}}};
  return r;
}

}  // namespace

TEST_CASE("json report: header and summary", "[report][render_json]") {
  json j = gd::render_json(sample_report());
  CHECK(j["schema_version"] == 1);
  CHECK(j["gpudoctor_version"] == "0.1.0");
  CHECK(j["run"] == json{{"mode", "replay"},
                         {"source", "h200.capture.json"},
                         {"duration_ms", 42},
                         {"uid", 1000},
                         {"host", "gpu-node-17"},
                         {"scope", "node"},
                         {"started", ""}});
  CHECK(j["summary"] ==
        json{{"status", "error"},
             {"errors", 1},
             {"warnings", 1},
             {"infos", 1},
             {"inconclusive", 1},
             {"left_out", json::array()},
             {"unconfirmed", 0},
             {"verdict", "problems"},
             {"verdict_text", "Found 1 error and 1 warning. The first finding is the most likely cause."}});
}

TEST_CASE("json report: summary status follows the worst finding", "[report][render_json]") {
  Report r = sample_report();
  r.findings = {make_finding("a", Severity::warning), make_finding("b", Severity::warning)};
  json j = gd::render_json(r);
  CHECK(j["summary"]["status"] == "warning");
  CHECK(j["summary"]["warnings"] == 2);
  CHECK(j["summary"]["errors"] == 0);
  r.findings = {make_finding("c", Severity::info)};
  CHECK(gd::render_json(r)["summary"]["status"] == "ok");
  r.findings.clear();
  CHECK(gd::render_json(r)["summary"]["status"] == "ok");
  CHECK(gd::render_json(r)["findings"] == json::array());
}

TEST_CASE("json report: findings carry every field", "[report][render_json]") {
  json j = gd::render_json(sample_report());
  REQUIRE(j["findings"].size() == 3);
  const json& f = j["findings"][0];
  CHECK(f["id"] == "cuda/visible-devices-hides-all");
  CHECK(f["severity"] == "error");
  CHECK(f["area"] == "cuda");
  CHECK(f["scope"] == "environment");
  CHECK(f["action"] == "fix-environment");
  CHECK(f["title"] == "CUDA_VISIBLE_DEVICES hides every GPU");
  CHECK(f["message"] == "CUDA_VISIBLE_DEVICES=\"99\" names no GPU;\nNVML sees 8 · see below");
  CHECK(f["why"] == "CUDA only enumerates the devices the variable lists.");
  CHECK(f["fix"] == json::array({"unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0,1"}));
  CHECK(f["references"] == json::array({"https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"}));
  CHECK(f["evidence"] ==
        json::array({json{{"fact", "env.cuda_visible_devices"_fact}, {"value", "99"}, {"source", "env:CUDA_VISIBLE_DEVICES"}},
                     json{{"fact", "cuda.init.result"_fact}, {"value", "100"}, {"source", "helper:cuInit"}}}));
  CHECK(f["consequences"] == json::array({"cuda/no-device"}));
  CHECK(j["findings"][1]["severity"] == "warning");
  CHECK(j["findings"][2]["severity"] == "info");
}

TEST_CASE("json report: areas, inconclusive rules and facts", "[report][render_json]") {
  json j = gd::render_json(sample_report());
  CHECK(j["areas"] == json::array({json{{"id", "cuda"},
                                        {"title", "CUDA driver (libcuda)"},
                                        {"status", "error"},
                                        {"summary", "cuInit failed: 100"},
                                        {"details", json::array({"detail"})}}}));
  CHECK(j["inconclusive"][0]["id"] == "driver/module-too-old");
  CHECK(j["inconclusive"][0]["unknown_facts"][0]["fact"] == "kmod.nvidia.version");
  CHECK(j["facts"]["cuda.init.result"_fact]["state"] == "present");
  CHECK(j["facts"]["cuda.init.result"_fact]["value"] == 100);
  CHECK(j["facts"]["nvml.init.result"_fact]["state"] == "unknown");
  CHECK(j["facts"]["nvml.init.result"_fact]["reason"] == "needs root");
}

TEST_CASE("json report: the capture only when there is one", "[report][render_json]") {
  Report r = sample_report();
  CHECK_FALSE(gd::render_json(r).contains("capture"));
  r.capture = json{{"format", "gpudoctor-capture"}, {"version", 1}, {"paths", json::object()}};
  json j = gd::render_json(r);
  REQUIRE(j.contains("capture"));
  CHECK(j["capture"] == *r.capture);
}

TEST_CASE("json report: user text survives serialisation", "[report][render_json]") {
  json j = gd::render_json(sample_report());
  json back = json::parse(j.dump());
  CHECK(back == j);
  CHECK(back["findings"][0]["message"] == "CUDA_VISIBLE_DEVICES=\"99\" names no GPU;\nNVML sees 8 · see below");
}

}  // namespace GD_UNITY_ID
