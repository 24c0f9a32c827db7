#pragma once
// The process exit codes, in one place (ninja exit_status.h).

namespace gd {

enum class ExitCode : int {
  healthy = 0,         ///< no finding at or above the --fail-on threshold
  problems_found = 1,  ///< at least one finding at or above the threshold
  usage_error = 2,     ///< bad flag, unreadable --root, corrupt capture, broken rule file, internal error
};

}  // namespace gd
