#include "util/signal_names.hpp"

#include <csignal>

namespace gd {

std::string signal_name(int signal) {
  struct Entry {
    int number;
    const char* name;
  };
  // The signals a crashing library can end a process with.
  static constexpr Entry k_names[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGABRT, "SIGABRT"}, {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"}, {SIGPIPE, "SIGPIPE"},
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
  };
  for (const auto& entry : k_names) {
    if (entry.number == signal) {
      return entry.name;
    }
  }
  return "signal " + std::to_string(signal);
}

}  // namespace gd
