#include "rules/embedded_rules.hpp"

namespace gd {

std::vector<RuleSource> to_rule_sources(std::span<const EmbeddedRuleFile> files) {
  std::vector<RuleSource> sources;
  sources.reserve(files.size());
  for (const EmbeddedRuleFile& file : files) {
    RuleSource source;
    source.relative_path = file.path;
    source.path = "rules/" + source.relative_path;
    source.text.assign(reinterpret_cast<const char*>(file.data), file.size);
    sources.push_back(std::move(source));
  }
  return sources;
}

}  // namespace gd
