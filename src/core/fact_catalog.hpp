#pragma once
// The one declared catalogue of facts (osquery specs, GUIDE 4.1.3): every fact a probe may set
// and a rule may name is listed here with its type and meaning. A `*` segment matches one
// number (a device ordinal), e.g. `cuda.device.*.name` covers `cuda.device.0.name`.

#include <optional>
#include <span>
#include <string_view>

#include "core/fact.hpp"

namespace gd {

struct FactSpec {
  std::string_view name;
  FactType type;
  std::string_view description;
};

/// Every declared fact, in catalogue order.
std::span<const FactSpec> fact_catalog();

/// The spec whose name (or pattern) matches `name`, if any.
std::optional<FactSpec> find_fact_spec(std::string_view name);

/// Closest declared name, for "did you mean" messages; empty when nothing is close.
std::string_view closest_fact_name(std::string_view name);

}  // namespace gd
