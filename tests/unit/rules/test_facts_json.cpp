// The facts JSON codec: round trip, hand-written shorthand, and errors that never throw.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "rules/facts_json.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

using nlohmann::json;

std::string error_of(const json& input) {
  gd::Result<gd::FactSet> result = gd::facts_from_json(input, "f.json");
  REQUIRE_FALSE(result);
  CHECK(result.error().file == "f.json");
  return result.error().message;
}

}  // namespace

TEST_CASE("facts survive a round trip through JSON", "[rules][facts_json]") {
  gd::FactSet facts;
  facts.set("cuda.init.result"_fact, std::int64_t{34}, "helper:cuInit");
  facts.set("cuda.libcuda.loaded"_fact, true, "helper:dlopen");
  facts.set("cuda.libcuda.path"_fact, std::string("/usr/local/cuda/lib64/stubs/libcuda.so"));
  facts.set("nvml.driver_version"_fact, std::string("580.159.04"));
  facts.set("cuda.context.failures"_fact, std::vector<std::string>{"0: context 46", "1: alloc 2"});
  facts.set("cuda.device.0.name"_fact, std::string("NVIDIA H200"));
  facts.set_absent("env.cuda_visible_devices"_fact, "env:CUDA_VISIBLE_DEVICES", "unset");
  facts.set_unknown("nvml.init.result"_fact, "needs root", "helper:nvmlInit");

  json out = gd::facts_to_json(facts);
  CHECK(out["cuda.init.result"_fact] == json({{"state", "present"}, {"type", "int"}, {"value", 34}, {"source", "helper:cuInit"}}));
  CHECK(out["nvml.init.result"_fact] ==
        json({{"state", "unknown"}, {"type", "int"}, {"reason", "needs root"}, {"source", "helper:nvmlInit"}}));
  CHECK(out["env.cuda_visible_devices"_fact]["state"] == "absent");
  CHECK_FALSE(out["env.cuda_visible_devices"_fact].contains("value"));

  gd::Result<gd::FactSet> back = gd::facts_from_json(out, "x.json");
  REQUIRE(back);
  REQUIRE(back->all().size() == facts.all().size());
  for (const auto& [name, fact] : facts.all()) {
    const gd::Fact* other = back->find(gd::FactName::unchecked(name));
    REQUIRE(other);
    CAPTURE(name);
    CHECK(other->state == fact.state);
    CHECK(other->type == fact.type);
    CHECK(other->value == fact.value);
    CHECK(other->source == fact.source);
    CHECK(other->reason == fact.reason);
  }
  CHECK(gd::facts_to_json(*back) == out);
}

TEST_CASE("bare values are present facts, and a wrapper object is accepted", "[rules][facts_json]") {
  json input = {{"cuda.init.result"_fact, 100},
                {"nvml.device_count"_fact, 1},
                {"env.cuda_visible_devices"_fact, ""},
                {"cuda.clean_env.removed"_fact, {"LD_PRELOAD=/x.so"}},
                {"cuda.libcuda.is_stub"_fact, false},
                {"nvml.init.result"_fact, {{"state", "unknown"}}}};
  gd::Result<gd::FactSet> facts = gd::facts_from_json(input, "f.json");
  REQUIRE(facts);
  CHECK(facts->get_int("cuda.init.result"_fact) == 100);
  CHECK(facts->get_string("env.cuda_visible_devices"_fact) == "");
  CHECK(facts->get_bool("cuda.libcuda.is_stub"_fact) == false);
  CHECK(facts->find("cuda.clean_env.removed"_fact)->value == gd::FactValue(std::vector<std::string>{"LD_PRELOAD=/x.so"}));
  CHECK(facts->find("nvml.init.result"_fact)->state == gd::FactState::unknown);

  json wrapped = {{"schema_version", 1}, {"facts", input}};
  gd::Result<gd::FactSet> unwrapped = gd::facts_from_json(wrapped, "f.json");
  REQUIRE(unwrapped);
  CHECK(unwrapped->all().size() == 6);

  // A value with no state means present.
  gd::Result<gd::FactSet> valued = gd::facts_from_json(json{{"cuda.init.result"_fact, {{"value", 3}}}}, "f.json");
  REQUIRE(valued);
  CHECK(valued->get_int("cuda.init.result"_fact) == 3);
}

TEST_CASE("bad facts give clear errors naming the fact and the file", "[rules][facts_json]") {
  CHECK(error_of(json{{"cuda.init.reslt", 1}}) == "unknown fact 'cuda.init.reslt' (did you mean 'cuda.init.result'?)");
  CHECK(error_of(json{{"cuda.init.result"_fact, "34"}}) ==
        "fact 'cuda.init.result': expected an integer (catalogue type int), got string \"34\"");
  CHECK(error_of(json{{"cuda.init.result"_fact, 3.5}}) ==
        "fact 'cuda.init.result': expected an integer (catalogue type int), got float 3.5");
  CHECK(error_of(json{{"cuda.init.result"_fact, 18446744073709551615ull}}) ==
        "fact 'cuda.init.result': integer 18446744073709551615 is out of range");
  CHECK(error_of(json{{"cuda.libcuda.loaded"_fact, 1}}) ==
        "fact 'cuda.libcuda.loaded': expected true or false (catalogue type bool), got integer 1");
  CHECK(error_of(json{{"cuda.clean_env.removed"_fact, {1, 2}}}) ==
        "fact 'cuda.clean_env.removed': expected an array of strings (catalogue type list), got array [1,2]");
  CHECK(error_of(json{{"cuda.init.result"_fact, nullptr}}).starts_with("fact 'cuda.init.result': null is not a value"));
  CHECK(error_of(json{{"cuda.init.result"_fact, {{"state", "present"}}}}) ==
        "fact 'cuda.init.result': state 'present' needs a 'value'");
  CHECK(error_of(json{{"cuda.init.result"_fact, {{"state", "absent"}, {"value", 1}}}}) ==
        "fact 'cuda.init.result': a value goes only with state 'present', not 'absent'");
  CHECK(error_of(json{{"cuda.init.result"_fact, {{"state", "gone"}}}}) ==
        "fact 'cuda.init.result': state must be present, absent or unknown, not 'gone'");
  CHECK(error_of(json{{"cuda.init.result"_fact, {{"state", "present"}, {"type", "string"}, {"value", 1}}}}) ==
        "fact 'cuda.init.result': type 'string' differs from the catalogue type 'int'");
  CHECK(error_of(json{{"cuda.init.result"_fact, {{"stat", "absent"}}}}) ==
        "fact 'cuda.init.result': unknown key 'stat' (use state, type, value, source, reason)");
  CHECK(error_of(json{{"cuda.init.result"_fact, {{"state", 1}}}}) == "fact 'cuda.init.result': 'state' must be a string");
  CHECK(error_of(json::array({1, 2})) == "facts must be a JSON object keyed by fact name, not array");
}

TEST_CASE("JSON text: syntax errors carry the line", "[rules][facts_json]") {
  gd::Result<gd::FactSet> ok = gd::facts_from_json_text("{\n  \"cuda.init.result\": 0\n}\n", "ok.json");
  REQUIRE(ok);
  CHECK(ok->get_int("cuda.init.result"_fact) == 0);

  gd::Result<gd::FactSet> bad = gd::facts_from_json_text("{\n  \"cuda.init.result\": 0,\n  oops\n}\n", "bad.json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().file == "bad.json");
  CHECK(bad.error().line == 3);
  CHECK(bad.error().message.starts_with("invalid JSON: "));

  gd::Result<gd::FactSet> empty = gd::facts_from_json_text("", "empty.json");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().describe().starts_with("empty.json:1: invalid JSON: "));
}

}  // namespace GD_UNITY_ID
