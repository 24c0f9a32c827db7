// Rule files (--rules): the TOML loader and its validation, then the compiled form.
#include "fuzz_target.hpp"
#include "rules/rule_codec.hpp"
#include "rules/rule_loader.hpp"

GD_FUZZ_TEXT({
  gd::RuleSource source;
  source.path = "fuzz/rule.toml";
  source.relative_path = "fuzz/rule.toml";
  source.text = std::string(text);
  gd::RuleLoadResult loaded = gd::load_rules(std::span<const gd::RuleSource>(&source, 1));
  if (!loaded.rules.empty()) (void)gd::decode_rules(gd::encode_rules(loaded.rules));
  (void)gd::decode_rules(text);
})
