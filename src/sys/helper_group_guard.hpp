#pragma once
// Ends the helpers' process groups when gpudoctor is told to stop. The helper dies by its
// parent-death signal when gpudoctor dies, but what libcuda forked (it runs in the helper's
// process group) would not: SIGTERM, SIGINT, SIGHUP and SIGQUIT first kill every registered
// group, wait briefly for it to be gone, then act as they would have without us.

#include <sys/types.h>

namespace gd {

/// Registers a running helper's process group (its leader's pid). The first call installs the
/// handlers; a signal the process ignores (nohup's SIGHUP) stays ignored. Async-signal-safe
/// state only: callable with signals blocked, right after fork.
void register_helper_group(pid_t group);
/// The helper was reaped: its group id may be reused from now on, so it is never killed again.
void unregister_helper_group(pid_t group);

/// How long a stop signal waits for the killed groups to be gone before gpudoctor exits.
inline constexpr int k_helper_group_wait_ms = 500;

}  // namespace gd
