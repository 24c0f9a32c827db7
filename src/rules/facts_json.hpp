#pragma once
// FactSet <-> JSON, the format of `gpudoctor facts --json`, `--facts FILE` and the per-rule
// fixtures under tests/rules/<rule-id>/:
//
//   { "cuda.init.result": {"state": "present", "type": "int", "value": 34, "source": "helper:cuInit"},
//     "nvml.init.result": {"state": "unknown", "reason": "needs root"},
//     "env.cuda_visible_devices": {"state": "absent"},
//     "nvml.device_count": 1 }                       <- bare value: present (hand-written fixtures)
//
// `type` is optional on input and must match the catalogue when given. A wrapper object
// `{"facts": {...}, ...}` is accepted too; its other keys are ignored.

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/error.hpp"
#include "core/fact_set.hpp"

namespace gd {

/// Every fact, keyed by name (sorted), each with state, type, value/reason and source.
nlohmann::json facts_to_json(const FactSet& facts);

/// One fact as the object facts_to_json() writes for it.
nlohmann::json fact_to_json(const Fact& fact);

/// Facts from parsed JSON. Names must be catalogued and values of the catalogue type; the first
/// problem is returned as an Error naming the fact and `file`. Never throws.
Result<FactSet> facts_from_json(const nlohmann::json& json, std::string_view file);

/// Parse JSON text, then facts_from_json(); syntax errors carry the line.
Result<FactSet> facts_from_json_text(std::string_view text, std::string_view file);

}  // namespace gd
