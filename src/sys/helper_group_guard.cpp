#include "sys/helper_group_guard.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <csignal>
#include <ctime>
#include <iterator>
#include <mutex>

#include <sys/wait.h>

namespace gd {
namespace {

// A few helper runs can be alive at once (the user-environment run started early, a clean-env
// or NVML-only run after it); slots hold their group ids, 0 when free.
constexpr int k_slots = 8;
std::atomic<pid_t> g_groups[k_slots];

constexpr int k_stop_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
struct sigaction g_previous[std::size(k_stop_signals)];
std::once_flag g_installed;

std::int64_t monotonic_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Only async-signal-safe calls: kill, waitpid, clock_gettime, nanosleep, sigaction, raise.
void on_stop_signal(int sig) {
  int saved = errno;
  bool any = false;
  for (auto& slot : g_groups) {
    pid_t group = slot.load();
    if (group > 0) {
      ::kill(-group, SIGKILL);
      any = true;
    }
  }
  const std::int64_t deadline = monotonic_ms() + k_helper_group_wait_ms;
  while (any && monotonic_ms() < deadline) {
    any = false;
    for (auto& slot : g_groups) {
      pid_t group = slot.load();
      if (group <= 0) continue;
      ::waitpid(group, nullptr, WNOHANG);  // the leader is our child: a zombie still counts
      if (::kill(-group, 0) == 0 || errno != ESRCH) any = true;
    }
    timespec pause{0, 5 * 1000 * 1000};
    if (any) ::nanosleep(&pause, nullptr);
  }
  // The disposition from before ours, then the signal again: it is blocked until this handler
  // returns, so the default action (or the earlier handler) then runs as it would have.
  for (std::size_t i = 0; i < std::size(k_stop_signals); ++i) {
    if (k_stop_signals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  }
  ::raise(sig);
  errno = saved;
}

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : k_stop_signals) sigaddset(&action.sa_mask, sig);
  for (std::size_t i = 0; i < std::size(k_stop_signals); ++i) {
    struct sigaction current {};
    if (::sigaction(k_stop_signals[i], nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    g_previous[i] = current;
    ::sigaction(k_stop_signals[i], &action, nullptr);
  }
}

}  // namespace

void register_helper_group(pid_t group) {
  std::call_once(g_installed, install_handlers);
  for (auto& slot : g_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
  // More runs than slots cannot happen (each run is collected before another of its kind
  // starts); were it to, that run's children are left to the parent-death signal alone.
}

void unregister_helper_group(pid_t group) {
  for (auto& slot : g_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace gd
