#include "rules/facts_json.hpp"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/fact_catalog.hpp"

namespace gd {
namespace {

using nlohmann::json;

json value_to_json(const FactValue& value) {
  struct Visitor {
    json operator()(bool b) const { return b; }
    json operator()(std::int64_t i) const { return i; }
    json operator()(const std::string& s) const { return s; }
    json operator()(const std::vector<std::string>& list) const { return list; }
  };
  return std::visit(Visitor{}, value);
}

std::string json_type_name(const json& value) {
  if (value.is_number_integer()) {
    return "integer";
  }
  if (value.is_number_float()) {
    return "float";
  }
  return value.type_name();
}

// Converts `value` to the catalogue type, or says why it cannot.
Result<FactValue> value_from_json(const json& value, FactType type, const std::string& where) {
  auto mismatch = [&](std::string_view expected) {
    return fail(where + ": expected " + std::string(expected) + " (catalogue type " + std::string(to_string(type)) +
                "), got " + json_type_name(value) + " " + value.dump());
  };
  switch (type) {
    case FactType::boolean:
      if (value.is_boolean()) {
        return FactValue(value.get<bool>());
      }
      return mismatch("true or false");
    case FactType::integer:
      if (value.is_number_unsigned()) {
        auto number = value.get<std::uint64_t>();
        if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          return fail(where + ": integer " + value.dump() + " is out of range");
        }
        return FactValue(static_cast<std::int64_t>(number));
      }
      if (value.is_number_integer()) {
        return FactValue(value.get<std::int64_t>());
      }
      return mismatch("an integer");
    case FactType::string:
    case FactType::version:
      if (value.is_string()) {
        return FactValue(value.get<std::string>());
      }
      return mismatch("a string");
    case FactType::list:
      if (value.is_array() && std::all_of(value.begin(), value.end(), [](const json& e) { return e.is_string(); })) {
        return FactValue(value.get<std::vector<std::string>>());
      }
      return mismatch("an array of strings");
  }
  return fail(where + ": unsupported type");
}

Result<std::string> optional_string(const json& entry, const char* key, const std::string& where) {
  auto it = entry.find(key);
  if (it == entry.end()) {
    return std::string();
  }
  if (!it->is_string()) {
    return fail(where + ": '" + key + "' must be a string");
  }
  return it->get<std::string>();
}

Result<Fact> fact_from_json(const std::string& name, const json& entry) {
  std::string where = "fact '" + name + "'";
  std::optional<FactSpec> spec = find_fact_spec(name);
  if (!spec) {
    std::string_view close = closest_fact_name(name);
    return fail("unknown fact '" + name + "'" + (close.empty() ? "" : " (did you mean '" + std::string(close) + "'?)"));
  }
  Fact fact;
  fact.name = name;
  fact.type = spec->type;
  if (entry.is_null()) {
    return fail(where + ": null is not a value; write {\"state\": \"absent\"} or {\"state\": \"unknown\"}");
  }
  if (!entry.is_object()) {  // bare value: present
    Result<FactValue> value = value_from_json(entry, spec->type, where);
    if (!value) {
      return std::unexpected(value.error());
    }
    fact.state = FactState::present;
    fact.value = std::move(*value);
    return fact;
  }
  for (const auto& [key, unused] : entry.items()) {
    if (key != "state" && key != "type" && key != "value" && key != "source" && key != "reason") {
      return fail(where + ": unknown key '" + key + "' (use state, type, value, source, reason)");
    }
  }
  Result<std::string> state = optional_string(entry, "state", where);
  Result<std::string> type = optional_string(entry, "type", where);
  Result<std::string> source = optional_string(entry, "source", where);
  Result<std::string> reason = optional_string(entry, "reason", where);
  for (const Result<std::string>* field : {&state, &type, &source, &reason}) {
    if (!*field) {
      return std::unexpected(field->error());
    }
  }
  if (!type->empty() && *type != to_string(spec->type)) {
    return fail(where + ": type '" + *type + "' differs from the catalogue type '" + std::string(to_string(spec->type)) +
                "'");
  }
  bool has_value = entry.contains("value");
  if (state->empty()) {
    *state = has_value ? "present" : "";
  }
  if (*state == "present") {
    if (!has_value) {
      return fail(where + ": state 'present' needs a 'value'");
    }
    Result<FactValue> value = value_from_json(entry.at("value"), spec->type, where);
    if (!value) {
      return std::unexpected(value.error());
    }
    fact.state = FactState::present;
    fact.value = std::move(*value);
  } else if (*state == "absent" || *state == "unknown") {
    if (has_value) {
      return fail(where + ": a value goes only with state 'present', not '" + *state + "'");
    }
    fact.state = *state == "absent" ? FactState::absent : FactState::unknown;
  } else {
    return fail(where + ": state must be present, absent or unknown" +
                (state->empty() ? std::string(" (or give a 'value')") : ", not '" + *state + "'"));
  }
  fact.source = std::move(*source);
  fact.reason = std::move(*reason);
  return fact;
}

int line_at(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

}  // namespace

json fact_to_json(const Fact& fact) {
  json out = json::object();
  out["state"] = std::string(to_string(fact.state));
  out["type"] = std::string(to_string(fact.type));
  if (fact.state == FactState::present) {
    out["value"] = value_to_json(fact.value);
  }
  if (!fact.reason.empty()) {
    out["reason"] = fact.reason;
  }
  if (!fact.source.empty()) {
    out["source"] = fact.source;
  }
  return out;
}

json facts_to_json(const FactSet& facts) {
  json out = json::object();
  for (const auto& [name, fact] : facts.all()) {
    out[name] = fact_to_json(fact);
  }
  return out;
}

Result<FactSet> facts_from_json(const json& input, std::string_view file) {
  std::string file_name(file);
  try {
    const json* root = &input;
    if (root->is_object() && root->contains("facts") && root->at("facts").is_object()) {
      root = &root->at("facts");
    }
    if (!root->is_object()) {
      return fail("facts must be a JSON object keyed by fact name, not " + json_type_name(*root), file_name);
    }
    FactSet facts;
    for (const auto& [name, entry] : root->items()) {
      Result<Fact> fact = fact_from_json(name, entry);
      if (!fact) {
        return fail(fact.error().message, file_name);
      }
      facts.put(std::move(*fact));
    }
    return facts;
  } catch (const std::exception& error) {  // nlohmann type errors, FactSet logic errors
    return fail(std::string("cannot read facts: ") + error.what(), file_name);
  }
}

Result<FactSet> facts_from_json_text(std::string_view text, std::string_view file) {
  json parsed;
  try {
    parsed = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& error) {
    std::string message = error.what();
    if (std::size_t close = message.find("] "); message.starts_with("[json.exception") && close != std::string::npos) {
      message.erase(0, close + 2);
    }
    return fail("invalid JSON: " + message, std::string(file), line_at(text, error.byte));
  } catch (const std::exception& error) {
    return fail(std::string("invalid JSON: ") + error.what(), std::string(file));
  }
  return facts_from_json(parsed, file);
}

}  // namespace gd
