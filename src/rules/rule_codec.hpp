#pragma once
// A compact binary form of loaded rules, written by rulec at build time and read at start-up:
// parsing ninety TOML files cost most of a run's host part, and they were already validated
// when the binary was built. Little-endian on every target, so a cross build (rulec run under
// qemu) writes what the target reads.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "rules/rule.hpp"

namespace gd {

std::string encode_rules(std::span<const Rule> rules);

/// Every check is made (lengths against the input, enum values, nesting depth): a damaged
/// blob gives an error, never a crash.
Result<std::vector<Rule>> decode_rules(std::string_view bytes);

}  // namespace gd
