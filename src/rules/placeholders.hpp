#pragma once
// `{fact.name}` placeholders in rule texts (title, message, why, fix). A placeholder is a brace
// pair around a dotted lower-case name (`{cuda.init.result}`); any other brace text, such as
// `${LD_LIBRARY_PATH}` or awk's `{print $1}`, is literal and left alone.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact_set.hpp"

namespace gd {

struct Placeholder {
  std::string fact;         ///< the name between the braces
  std::size_t offset = 0;   ///< position of '{' in the text
  std::size_t length = 0;   ///< including both braces
};

/// Every placeholder in `text`, in order.
std::vector<Placeholder> find_placeholders(std::string_view text);

/// What a fact no probe produced prints as, in texts and evidence.
inline constexpr std::string_view k_not_collected = "unknown (not collected)";

/// What a placeholder prints: the fact's fact_text() (its value, "absent" or "unknown (why)"),
/// or k_not_collected when no probe produced the fact.
std::string placeholder_value(const FactSet& facts, std::string_view name);

/// `text` with every placeholder replaced by placeholder_value().
std::string fill_placeholders(std::string_view text, const FactSet& facts);

}  // namespace gd
