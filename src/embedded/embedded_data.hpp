#pragma once
// What the build embeds in the binary: the CUDA helper program and the rule files.

#include <span>
#include <vector>

#include "rules/rule_loader.hpp"

namespace gd {

/// The glibc CUDA helper built for this binary's architecture.
std::span<const unsigned char> embedded_cuda_helper();

/// The rule files from rules/, validated when the binary was built.
std::vector<RuleSource> embedded_rule_sources();

/// Those rules as rulec loaded them (empty if the compiled form does not decode).
std::vector<Rule> embedded_compiled_rules();

}  // namespace gd
