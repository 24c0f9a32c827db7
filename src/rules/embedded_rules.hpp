#pragma once
// The rules compiled into the binary. rulec (src/rules/tool/rulec_main.cpp) validates rules/
// at build time and generates a source file that defines the two objects declared here; only
// the executable that links that generated file may call load_embedded_rules().

#include <cstddef>
#include <span>
#include <vector>

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

/// Rule sources for embedded files; diagnostics name them "rules/<path>".
std::vector<RuleSource> to_rule_sources(std::span<const EmbeddedRuleFile> files);

/// The built-in rule set. Inline so that only code calling it needs the generated file.
inline RuleLoadResult load_embedded_rules() {
  return load_rules(to_rule_sources(std::span<const EmbeddedRuleFile>(k_embedded_rule_files, k_embedded_rule_file_count)));
}

}  // namespace gd
