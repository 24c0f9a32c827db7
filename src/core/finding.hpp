#pragma once
// What a rule concluded about the host, with the evidence that led there.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

enum class Severity { info, warning, error };

std::string_view to_string(Severity severity);

/// Whose problem a finding is: the node's (a scheduler may drain it) or only the invoking user's
/// environment (their variables, Python environment, toolkit choice, container settings), which
/// must never take a node out of service.
enum class Scope { node, environment };

/// What kind of action fixes a finding, for schedulers and repair automation (the set is a
/// contract: README "Scope and action").
enum class Action {
  none,             ///< nothing to do (informational)
  fix_environment,  ///< change the user's variables, Python environment or toolkit choice
  fix_config,       ///< change the node's or container's configuration, or install a missing part
  update_software,  ///< install another driver, firmware, toolkit or package version
  restart_service,  ///< restart a daemon (fabric manager, persistenced)
  reset_gpu,        ///< reset the GPU (nvidia-smi -r) when idle, or reboot
  reboot,           ///< reboot the node (reload the driver)
  replace_hardware  ///< the GPU, its memory or its link needs service (RMA)
};

std::string_view to_string(Scope scope);
std::string_view to_string(Action action);
/// Parse the names to_string gives ("node", "reset-gpu"); false for anything else.
bool parse_scope(std::string_view text, Scope& out);
bool parse_action(std::string_view text, Action& out);
/// Every action name, in the order of the enum (for messages and documentation tests).
std::span<const std::string_view> action_names();

/// One fact the finding rests on, as it was when the rule ran.
struct Evidence {
  std::string fact;
  std::string value;   ///< fact_text(): the value, "absent" or "unknown (reason)"
  std::string source;  ///< where the fact came from
};

struct Finding {
  std::string id;  ///< the rule id; stable API
  Severity severity = Severity::info;
  std::string area;     ///< report area the finding belongs to ("cuda", "nvml", ...)
  Scope scope = Scope::node;
  Action action = Action::fix_config;
  std::string title;
  std::string message;  ///< what was observed, placeholders filled
  std::string why;      ///< why it matters
  std::vector<std::string> fix;         ///< steps, usually commands
  std::vector<std::string> references;  ///< sources (URLs, driver source paths)
  std::vector<Evidence> evidence;
  std::vector<std::string> consequences;  ///< ids of findings this one explains (root cause first)
  /// false when the rule names what the CUDA proof would show (`confirmed_by`) and the proof was
  /// not run: the finding rests on the host's files alone.
  bool confirmed = true;
  std::string unconfirmed;  ///< when not confirmed: what was not tried, and what to run to confirm
};

/// A rule that could not decide because facts it needs are unknown.
struct Inconclusive {
  std::string id;
  std::string title;
  std::vector<Evidence> unknown_facts;
};

}  // namespace gd
