#pragma once
// A rule fixture (tests/rules/README.md) is a base fact set plus what differs, the form the host
// cases use for captures, so that a fixture file holds only what its author wrote:
//
//   {"about": "...", "base": "h200-healthy", "facts": {"nvml.persistence_mode": false},
//    "remove": ["nvml.loaded"], "expect": {"fix_contains": ["..."]}}
//
// A base is tests/rules/bases/<name>.json, {"about": "...", "facts": {...}}, one real host state
// kept once; it may itself be another base plus what differs ("base", "facts", "remove"), as
// when the same host is a positive of one rule and a negative of another. Every key is optional
// but none other is allowed; a fixture without a base is its facts alone. Each mistake is an error naming the fixture: an unknown key, an unknown base, a
// "remove" of a fact the base lacks, a fact both changed and removed, and a fact restated with the
// base's own value (it would hide what the fixture changes).

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/fact_set.hpp"
#include "rules/facts_json.hpp"

#ifndef GD_SOURCE_DIR
#error "GD_SOURCE_DIR must name the repository root"
#endif

namespace gd::test {

/// A fixture with its base applied.
struct RuleFixture {
  gd::FactSet facts;
  nlohmann::json expect;  ///< the "expect" object, or null
};

/// tests/rules/bases/ of the repository.
inline std::filesystem::path rule_fixture_bases() {
  return std::filesystem::path(GD_SOURCE_DIR) / "tests" / "rules" / "bases";
}

inline std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

namespace detail {

inline gd::Result<nlohmann::json> parse_object(std::string_view text, const std::string& file) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return gd::fail("invalid JSON", file);
  if (!parsed.is_object()) return gd::fail("a fixture is a JSON object, not " + std::string(parsed.type_name()), file);
  return parsed;
}

/// How deep bases may build on bases; deeper is a loop or a chain too long to read.
constexpr int k_max_base_depth = 4;

inline gd::Result<nlohmann::json> resolved_facts(const nlohmann::json& node, const std::string& file,
                                                 const std::filesystem::path& bases, int depth);

/// The facts of base `name`, its own base applied. `fixture` is the file that names it.
inline gd::Result<nlohmann::json> base_facts(const std::string& name, const std::filesystem::path& bases,
                                             const std::string& fixture, int depth) {
  std::filesystem::path file = bases / (name + ".json");
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos || !std::filesystem::is_regular_file(file, ec)) {
    return gd::fail("unknown base '" + name + "' (no " + file.string() + ")", fixture);
  }
  if (depth >= k_max_base_depth) return gd::fail("bases build on each other too deep (a loop?) at '" + name + "'", fixture);
  gd::Result<nlohmann::json> base = parse_object(read_text_file(file), file.string());
  if (!base) return std::unexpected(base.error());
  for (const auto& [key, value] : base->items()) {
    if (key != "about" && key != "base" && key != "facts" && key != "remove") {
      return gd::fail("unknown key '" + key + "' in a base (use about, base, facts, remove)", file.string());
    }
  }
  if (!base->contains("about") || !(*base)["about"].is_string() || (*base)["about"].get<std::string>().empty()) {
    return gd::fail("a base needs an \"about\": the host it was, in words", file.string());
  }
  return resolved_facts(*base, file.string(), bases, depth + 1);
}

/// The facts of a fixture or base `node` (read from `file`): its base's, less "remove", plus "facts".
inline gd::Result<nlohmann::json> resolved_facts(const nlohmann::json& node, const std::string& file,
                                                 const std::filesystem::path& bases, int depth) {
  if (node.contains("base") && !node["base"].is_string()) return gd::fail("\"base\" must be a string", file);
  if (node.contains("facts") && !node["facts"].is_object()) return gd::fail("\"facts\" must be an object", file);
  nlohmann::json own = node.value("facts", nlohmann::json::object());
  std::string base_name = node.value("base", std::string());
  bool has_base = node.contains("base");

  nlohmann::json merged = nlohmann::json::object();
  if (has_base) {
    gd::Result<nlohmann::json> base = base_facts(base_name, bases, file, depth);
    if (!base) return std::unexpected(base.error());
    merged = std::move(*base);
  }
  if (node.contains("remove")) {
    const nlohmann::json& remove = node["remove"];
    if (!has_base) return gd::fail("\"remove\" needs a \"base\" to remove from", file);
    if (!remove.is_array()) return gd::fail("\"remove\" must be a list of fact names", file);
    for (const nlohmann::json& name : remove) {
      if (!name.is_string()) return gd::fail("\"remove\" must be a list of fact names", file);
      std::string fact = name.get<std::string>();
      if (!merged.contains(fact)) return gd::fail("\"remove\" names '" + fact + "', which base '" + base_name + "' lacks", file);
      if (own.contains(fact)) return gd::fail("fact '" + fact + "' is both in \"facts\" and in \"remove\"", file);
      merged.erase(fact);
    }
  }
  if (has_base && !own.empty()) {
    // The base's facts and the fixture's, each read alone, compare as the report would show them.
    gd::Result<gd::FactSet> base_set = gd::facts_from_json(merged, file);
    gd::Result<gd::FactSet> own_set = gd::facts_from_json(own, file);
    if (!base_set) return std::unexpected(base_set.error());
    if (!own_set) return std::unexpected(own_set.error());
    for (const auto& [name, fact] : own_set->all()) {
      const gd::Fact* was = base_set->find(gd::FactName::unchecked(name));
      if (was != nullptr && gd::fact_to_json(*was) == gd::fact_to_json(fact)) {
        return gd::fail("fact '" + name + "' has the same value as in base '" + base_name + "': leave it out", file);
      }
    }
  }
  for (const auto& [name, entry] : own.items()) merged[name] = entry;
  return merged;
}

}  // namespace detail

/// The fixture in `text` (named `file` in errors) with its base, if any, read from `bases`.
inline gd::Result<RuleFixture> resolve_rule_fixture(std::string_view text, const std::string& file,
                                                    const std::filesystem::path& bases = rule_fixture_bases()) {
  gd::Result<nlohmann::json> parsed = detail::parse_object(text, file);
  if (!parsed) return std::unexpected(parsed.error());
  const nlohmann::json& fixture = *parsed;
  for (const auto& [key, value] : fixture.items()) {
    if (key != "about" && key != "base" && key != "facts" && key != "remove" && key != "expect") {
      return gd::fail("unknown key '" + key + "' (use about, base, facts, remove, expect)", file);
    }
  }
  if (fixture.contains("about") && !fixture["about"].is_string()) return gd::fail("\"about\" must be a string", file);
  if (fixture.contains("expect") && !fixture["expect"].is_object()) return gd::fail("\"expect\" must be an object", file);
  gd::Result<nlohmann::json> merged = detail::resolved_facts(fixture, file, bases, 0);
  if (!merged) return std::unexpected(merged.error());
  gd::Result<gd::FactSet> facts = gd::facts_from_json(*merged, file);
  if (!facts) return std::unexpected(facts.error());
  return RuleFixture{std::move(*facts), fixture.contains("expect") ? fixture["expect"] : nlohmann::json()};
}

/// The fixture file `file`, resolved.
inline gd::Result<RuleFixture> load_rule_fixture(const std::filesystem::path& file) {
  return resolve_rule_fixture(read_text_file(file), file.string());
}

}  // namespace gd::test
