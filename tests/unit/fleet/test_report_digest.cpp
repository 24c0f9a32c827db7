// The digest keeps what grouping needs of a real report and refuses, with a reason, everything
// that is not a report this version can count: broken JSON, foreign JSON, a capture, a newer
// schema, wrong types where the digest reads, nesting without end.
#include "fleet/report_digest.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "replayed_reports.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using nlohmann::json;

namespace {

std::string reason_for(const std::string& text) {
  auto digest = gd::digest_report(text);
  REQUIRE_FALSE(digest);
  return digest.error();
}

json minimal() { return json::parse(R"({"schema_version": 1, "run": {"host": "n1"}, "findings": []})"); }

}  // namespace

TEST_CASE("digest: a replayed report keeps its node, scope and findings in order", "[fleet][digest]") {
  gd::Report report = gd::test::replayed_report("lxc-stale-uvm-major");
  REQUIRE_FALSE(report.findings.empty());
  std::string text = gd::test::replayed_report_json("lxc-stale-uvm-major", "gpu-node-07", "2026-12-01T10:22:33.123Z");
  auto digest = gd::digest_report(text);
  REQUIRE(digest);
  CHECK(digest->schema_version == 1);
  CHECK(digest->host == "gpu-node-07");
  CHECK(digest->started == "2026-12-01T10:22:33.123Z");
  CHECK(digest->scope == "all");
  REQUIRE(digest->findings.size() == report.findings.size());
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const gd::Finding& f = report.findings[i];
    CHECK(digest->findings[i].id == f.id);
    CHECK(digest->findings[i].severity == gd::to_string(f.severity));
    CHECK(digest->findings[i].scope == gd::to_string(f.scope));
    CHECK(digest->findings[i].action == gd::to_string(f.action));
    CHECK(digest->findings[i].title == f.title);
    CHECK(digest->findings[i].first_fix == (f.fix.empty() ? "" : f.fix[0]));
  }
}

TEST_CASE("digest: fields it does not know are ignored (fields are only added)", "[fleet][digest]") {
  json r = minimal();
  r["newer_section"] = {{"x", json::array({1, 2, {{"findings", "not these"}}})}};
  r["run"]["new_field"] = {{"host", 7}};
  r["findings"] = json::array({{{"id", "a.b"}, {"severity", "warning"}, {"new", {1, 2}}, {"fix", {"step 1", "step 2"}}}});
  auto digest = gd::digest_report(r.dump());
  REQUIRE(digest);
  CHECK(digest->host == "n1");
  REQUIRE(digest->findings.size() == 1);
  CHECK(digest->findings[0].id == "a.b");
  CHECK(digest->findings[0].first_fix == "step 1");
  CHECK(digest->findings[0].scope.empty());  // a report older than the field
}

TEST_CASE("digest: run.started is kept only in the form reports write it", "[fleet][digest]") {
  CHECK(gd::is_report_timestamp("2026-12-01T10:22:33Z"));
  CHECK(gd::is_report_timestamp("2026-12-01T10:22:33.123Z"));
  CHECK_FALSE(gd::is_report_timestamp("2026-12-01 10:22:33"));
  CHECK_FALSE(gd::is_report_timestamp("2026-12-01T10:22:33+01:00"));
  CHECK_FALSE(gd::is_report_timestamp("yesterday"));
  json r = minimal();
  r["run"]["started"] = "tomorrow at noon";
  auto digest = gd::digest_report(r.dump());
  REQUIRE(digest);
  CHECK(digest->started.empty());
}

TEST_CASE("digest: what is not a report says why", "[fleet][digest]") {
  CHECK(reason_for("").starts_with("not valid JSON: "));
  CHECK(reason_for("{\"schema_version\": 1, \"findings\": [").find("unexpected end of input") != std::string::npos);
  CHECK(reason_for("[1, 2]") == "not a gpudoctor report: the JSON is not an object");
  CHECK(reason_for("\"text\"") == "not a gpudoctor report: the JSON is not an object");
  CHECK(reason_for(R"({"name": "package.json", "version": "1.0.0"})") ==
        "not a gpudoctor report: it has no schema_version");
  CHECK(reason_for(R"({"format": "gpudoctor-capture", "version": 1, "paths": {}})")
            .starts_with("a gpudoctor capture, not a report"));
  CHECK(reason_for(R"({"schema_version": 2, "findings": []})") ==
        "schema_version 2 is newer than this gpudoctor reads (1): read it with a newer gpudoctor");
  CHECK(reason_for(R"({"schema_version": 0, "findings": []})") == "not a gpudoctor report: schema_version 0");
  CHECK(reason_for(R"({"schema_version": "1", "findings": []})") == "not a gpudoctor report: schema_version is a string");
  CHECK(reason_for(R"({"schema_version": 1})") == "not a gpudoctor report: it has no findings list");
  CHECK(reason_for(R"({"schema_version": 1, "findings": {}})") == "not a gpudoctor report: findings is not a list");
  CHECK(reason_for(R"({"schema_version": 1, "findings": [{"severity": "error"}]})") ==
        "not a gpudoctor report: findings[0] has no id");
  CHECK(reason_for(R"({"schema_version": 1, "findings": [{"id": 5}]})") ==
        "not a gpudoctor report: findings[0].id is a number, not a string");
  CHECK(reason_for(R"({"schema_version": 1, "findings": ["a.b"]})") ==
        "not a gpudoctor report: findings[0] is a string, not an object");
  CHECK(reason_for(R"({"schema_version": 1, "run": {"host": ["a"]}, "findings": []})") ==
        "not a gpudoctor report: run.host is not a string");
  CHECK(reason_for(std::string(100000, '[')) == "not a gpudoctor report: nested more than 256 levels deep");
  CHECK(reason_for(std::string("{\"schema_version\": 1, \"findings\": [], \"x\": \"\xff\xfe\"}")).starts_with("not valid JSON"));
}

TEST_CASE("digest: a parse error never quotes the input", "[fleet][digest]") {
  // nlohmann's message ends "; last read: '<the token>'": the token may be a secret.
  CHECK(reason_for(R"({"key": AKIAIOSFODNN7EXAMPLE})") ==
        "not valid JSON: parse error at line 1, column 9: syntax error while parsing value - invalid literal");
  std::string bad_string = reason_for("{\"url\": \"https://u:ghp_secret@example.com\n\"}");
  CHECK(bad_string.starts_with("not valid JSON: parse error at line "));
  CHECK(bad_string.find("invalid string: control character U+000A (LF) must be escaped") != std::string::npos);
  CHECK(bad_string.find("ghp_secret") == std::string::npos);
  CHECK(bad_string.find("last read") == std::string::npos);
}

TEST_CASE("digest: a hostile report cannot make its digest large", "[fleet][digest]") {
  json r = minimal();
  r["run"]["host"] = std::string(100000, 'h');
  json findings = json::array();
  for (int i = 0; i < 1500; ++i) findings.push_back({{"id", "r" + std::to_string(i)}, {"title", std::string(3000, 't')}});
  r["findings"] = findings;
  auto digest = gd::digest_report(r.dump());
  REQUIRE(digest);
  CHECK(digest->host.size() <= 256);
  CHECK(digest->findings.size() == 1000);
  CHECK(digest->findings[0].title.size() <= 2048);
  CHECK(digest->findings[0].title.ends_with("..."));
}

}  // namespace GD_UNITY_ID
