#pragma once
// The rules compiled into the binary. rulec (src/rules/tool/rulec_main.cpp) validates rules/
// at build time and generates a source file that defines the two objects declared here; only
// the executable that links that generated file may call load_embedded_rules().

#include <cstddef>
#include <span>
#include <vector>

#include "rules/rule_codec.hpp"
#include "rules/rule_loader.hpp"

namespace gd {

/// One rule file as bytes: `path` is relative to rules/ ("cuda/stub-libcuda.toml").
struct EmbeddedRuleFile {
  const char* path;
  const unsigned char* data;
  std::size_t size;
};

extern const EmbeddedRuleFile k_embedded_rule_files[];
extern const std::size_t k_embedded_rule_file_count;
/// The same rules as rulec loaded them, in rules/rule_codec's form.
extern const unsigned char* const k_embedded_rules_compiled;
extern const std::size_t k_embedded_rules_compiled_size;

/// Rule sources for embedded files; diagnostics name them "rules/<path>".
std::vector<RuleSource> to_rule_sources(std::span<const EmbeddedRuleFile> files);

/// The built-in rule set, from the form rulec compiled at build time (parsing the TOML again
/// would cost most of a run's host part); from the TOML text should that ever fail to decode.
/// Inline so that only code calling it needs the generated file.
inline RuleLoadResult load_embedded_rules() {
  auto compiled = decode_rules(std::string_view(reinterpret_cast<const char*>(k_embedded_rules_compiled),
                                                k_embedded_rules_compiled_size));
  if (compiled) {
    return RuleLoadResult{std::move(*compiled), {}};
  }
  return load_rules(to_rule_sources(std::span<const EmbeddedRuleFile>(k_embedded_rule_files, k_embedded_rule_file_count)));
}

}  // namespace gd
