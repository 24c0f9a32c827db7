// Another node's report, edited by hand or made by another binary, printed again by fleet and
// diff: its tokens of a known shape are scrubbed on the way in, its other strings kept.
#include <catch2/catch.hpp>

#include "fleet/diff_render.hpp"
#include "fleet/report_diff.hpp"
#include "fleet/report_digest.hpp"
#include "replayed_reports.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using nlohmann::json;

namespace {

constexpr std::string_view k_hf = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh";
constexpr std::string_view k_ghp = "ghp_0123456789abcdefghijABCDEFGHIJ0123";
constexpr std::string_view k_aws = "AKIAIOSFODNN7EXAMPLE";

/// A real report (h200-live-cvd99 has one finding) with tokens planted in its strings.
json planted_report() {
  json r = json::parse(gd::test::replayed_report_json("h200-live-cvd99", "node-" + std::string(k_aws)));
  json& f = r["findings"].at(0);
  f["title"] = f["title"].get<std::string>() + " " + std::string(k_hf);
  f["fix"].insert(f["fix"].begin(), "pip install --index-url https://u:hunter2@pypi.example.com/simple " + std::string(k_ghp));
  r["facts"]["env.ld_library_path"_fact]["value"] = "/opt/" + std::string(k_hf) + "/lib";
  r["facts"][std::string(k_ghp)] = json{{"state", "present"}, {"value", std::string(k_aws)}};
  r["facts"]["torch.git_version"_fact] = json{{"state", "present"}, {"value", "70d99e998b4955e0049d13a98d77ae1b14db1f45"}};
  return r;
}

bool has_token(const std::string& text) {
  return text.find(k_hf) != std::string::npos || text.find(k_ghp) != std::string::npos ||
         text.find(k_aws) != std::string::npos || text.find("hunter2") != std::string::npos;
}

}  // namespace

TEST_CASE("fleet digest: a foreign report's strings lose their tokens", "[fleet][secrets]") {
  auto digest = gd::digest_report(planted_report().dump());
  REQUIRE(digest);
  CHECK(digest->host == "<secret>");
  REQUIRE(digest->findings.size() == 1);
  CHECK(digest->findings[0].id == "cuda.visible-devices-hides-gpus");
  CHECK(digest->findings[0].title.ends_with(" <secret>"));
  CHECK(digest->findings[0].first_fix == "pip install --index-url https://u:<secret>@pypi.example.com/simple <secret>");
}

TEST_CASE("diff: a foreign report's findings, facts and host lose their tokens", "[fleet][diff][secrets]") {
  auto a = gd::diff_side_from_report(planted_report(), "a.json", "report");
  auto b = gd::diff_side_from_report(json::parse(gd::test::replayed_report_json("h200-live-cvd99", "vm")), "b.json", "report");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->host == "<secret>");
  CHECK(a->facts["env.ld_library_path"_fact]["value"] == "/opt/<secret>/lib");
  CHECK(a->facts.contains("<secret>"));
  CHECK(a->facts["torch.git_version"_fact]["value"] == "70d99e998b4955e0049d13a98d77ae1b14db1f45");  // no secret
  gd::ReportDiff diff = gd::diff_reports(*a, *b, gd::ShowVolatile::yes);
  std::string text = gd::render_diff_text(*a, *b, diff, gd::DiffTextOptions{true});
  std::string json_text = gd::render_diff_json(*a, *b, diff).dump();
  CHECK(!has_token(text));
  CHECK(!has_token(json_text));
  CHECK(text.find("/opt/<secret>/lib") != std::string::npos);  // the difference is still shown
}

}  // namespace GD_UNITY_ID
