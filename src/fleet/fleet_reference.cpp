#include "fleet/fleet_reference.hpp"

#include <nlohmann/json.hpp>

#include "fleet/report_digest.hpp"

namespace gd {
namespace {

using nlohmann::json;

constexpr std::size_t k_max_small_reference = 1u << 20;  // a few dozen facts: far less than this

/// A small reference's value as the fleet's text of a fact (fleet/fleet_facts).
std::expected<std::string, std::string> value_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return std::string(value.get<bool>() ? "true" : "false");
  if (value.is_number_integer() || value.is_number_unsigned()) return value.dump();
  if (value.is_array()) {
    std::string out;
    for (const json& item : value) {
      if (!item.is_string() && !item.is_boolean() && !item.is_number_integer() && !item.is_number_unsigned()) {
        return std::unexpected(std::string("a list of strings or numbers"));
      }
      auto text = value_text(item);
      out += (out.empty() ? "" : ", ") + *text;
    }
    return out.empty() ? std::string(k_empty_value) : out;
  }
  return std::unexpected(std::string("a string, number, boolean or list"));
}

std::expected<std::vector<std::optional<std::string>>, std::string> read_small(std::string_view text,
                                                                               FleetFactSelection& selection) {
  if (text.size() > k_max_small_reference) {
    return std::unexpected(std::string("not a gpudoctor report, and too large for a JSON object of fact values"));
  }
  json object = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) return std::unexpected(std::string("not valid JSON"));
  if (!object.is_object() || object.empty()) {
    return std::unexpected(std::string("neither a gpudoctor report nor a JSON object of fact values "
                                       "({\"kmod.nvidia.version\": \"580.95.05\"})"));
  }
  std::vector<std::pair<std::size_t, std::string>> given;
  for (const auto& [key, value] : object.items()) {
    std::string why;
    auto index = selection.add(key, &why);
    if (!index) return std::unexpected(why.size() > 300 ? why.substr(0, 300) + "..." : why);
    auto textual = value_text(value);
    if (!textual) return std::unexpected(key + ": the value is not " + textual.error());
    given.emplace_back(*index, std::move(*textual));
  }
  std::vector<std::optional<std::string>> out(selection.keys().size());
  for (auto& [index, value] : given) out[index] = std::move(value);
  return out;
}

}  // namespace

std::expected<std::vector<std::optional<std::string>>, std::string> read_fleet_reference(std::string_view text,
                                                                                      FleetFactSelection& selection) {
  auto digest = digest_report(text, &selection);
  if (!digest) {
    // No schema_version: the small form, an object of fact values.
    if (digest.error() == "not a gpudoctor report: it has no schema_version") return read_small(text, selection);
    return std::unexpected(digest.error());
  }
  auto values = selection.node_values(digest->facts);
  bool any = false;
  for (const auto& v : values) any = any || v.has_value();
  if (!any) return std::unexpected(std::string("the report has none of the facts a fleet compares"));
  return values;
}

}  // namespace gd
