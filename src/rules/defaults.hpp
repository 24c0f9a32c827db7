#pragma once
// The scope and action a rule has when its file leaves them out: one default per rules/ folder,
// so that every rule has both (a scheduler needs them for each finding).

#include <string_view>

#include "core/finding.hpp"

namespace gd {

struct ScopeAction {
  Scope scope;
  Action action;
};

/// The default for a rule id, from its first segment (the rules/ folder, a layer's rule_folders in
/// core/all_layers.hpp); a folder no layer names (a site's own --rules) is the node's and fixed
/// by configuration.
ScopeAction default_scope_action(std::string_view rule_id);

}  // namespace gd
