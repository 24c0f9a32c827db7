#pragma once
// A fact is one typed observation about the host: present(value), absent, or unknown(reason).

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace gd {

enum class FactType { boolean, integer, string, version, list };

enum class FactState {
  present,  ///< the probe saw it; `value` holds it
  absent,   ///< the probe ran and the thing is not there
  unknown,  ///< the probe could not tell; `reason` says why (needs root, timeout, ...)
};

/// bool, integer, string (also versions, compared numerically), list of strings.
using FactValue = std::variant<bool, std::int64_t, std::string, std::vector<std::string>>;

struct Fact {
  std::string name;
  FactType type = FactType::string;
  FactState state = FactState::unknown;
  FactValue value;
  std::string reason;  ///< why it is unknown (or a note on why it is absent)
  std::string source;  ///< provenance: a path, "helper:cuInit", "env:CUDA_VISIBLE_DEVICES"
};

std::string_view to_string(FactType type);
std::string_view to_string(FactState state);

/// The value as text for reports: `true`, `42`, `580.159.04`, `[a, b]`.
std::string value_text(const FactValue& value);

/// The fact as text: its value, `absent`, or `unknown (reason)`.
std::string fact_text(const Fact& fact);

}  // namespace gd
