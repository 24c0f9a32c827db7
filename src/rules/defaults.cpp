#include "rules/defaults.hpp"

#include <array>

namespace gd {
namespace {

struct FolderDefault {
  std::string_view folder;
  ScopeAction value;
};

// Most rules of a folder share whose problem it is and what fixes it; rule files override the
// exceptions (cuda.visible-devices-hides-gpus is the user's variable, nvml.row-remap-failure
// needs the GPU replaced, ...).
constexpr std::array k_defaults = {
    // The container's settings come from the job or pod that started it: not the node's.
    FolderDefault{"container", {Scope::environment, Action::fix_config}},
    FolderDefault{"cuda", {Scope::node, Action::fix_config}},
    FolderDefault{"devices", {Scope::node, Action::fix_config}},
    FolderDefault{"driver", {Scope::node, Action::update_software}},
    FolderDefault{"firmware", {Scope::node, Action::update_software}},
    FolderDefault{"hardware", {Scope::node, Action::fix_config}},
    FolderDefault{"klog", {Scope::node, Action::reboot}},
    FolderDefault{"libraries", {Scope::node, Action::fix_config}},
    // The invoking user's Python environment and toolkit choice.
    FolderDefault{"ml", {Scope::environment, Action::fix_environment}},
    FolderDefault{"nvml", {Scope::node, Action::reset_gpu}},
    FolderDefault{"services", {Scope::node, Action::restart_service}},
    FolderDefault{"toolkit", {Scope::environment, Action::fix_environment}},
    FolderDefault{"xid", {Scope::node, Action::reset_gpu}},
};

}  // namespace

ScopeAction default_scope_action(std::string_view rule_id) {
  std::string_view folder = rule_id.substr(0, rule_id.find('.'));
  for (const FolderDefault& entry : k_defaults) {
    if (entry.folder == folder) return entry.value;
  }
  return {Scope::node, Action::fix_config};
}

}  // namespace gd
