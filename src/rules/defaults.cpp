#include "rules/defaults.hpp"

#include "core/all_layers.hpp"

namespace gd {

// Most rules of a folder share whose problem it is and what fixes it: each layer's row names its
// folders' defaults (core/all_layers.hpp); rule files override the exceptions
// (cuda.visible-devices-hides-gpus is the user's variable, nvml.row-remap-failure needs the GPU
// replaced, ...).
ScopeAction default_scope_action(std::string_view rule_id) {
  std::string_view folder = rule_id.substr(0, rule_id.find('.'));
  for (const Layer& layer : all_layers()) {
    for (const RuleFolder& entry : layer.rule_folders) {
      if (entry.folder == folder) return {entry.scope, entry.action};
    }
  }
  return {Scope::node, Action::fix_config};
}

}  // namespace gd
