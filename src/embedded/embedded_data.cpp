#include "embedded/embedded_data.hpp"

#include <cstddef>

#include "rules/embedded_rules.hpp"

namespace gd {

extern const unsigned char k_cuda_helper_elf[];
extern const std::size_t k_cuda_helper_elf_size;

std::span<const unsigned char> embedded_cuda_helper() { return {k_cuda_helper_elf, k_cuda_helper_elf_size}; }

std::vector<Rule> embedded_compiled_rules() {
  auto rules = decode_rules(std::string_view(reinterpret_cast<const char*>(k_embedded_rules_compiled),
                                             k_embedded_rules_compiled_size));
  return rules ? std::move(*rules) : std::vector<Rule>{};
}

std::vector<RuleSource> embedded_rule_sources() {
  return to_rule_sources(std::span<const EmbeddedRuleFile>(k_embedded_rule_files, k_embedded_rule_file_count));
}

}  // namespace gd
