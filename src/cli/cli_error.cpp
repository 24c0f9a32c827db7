#include "cli/cli_error.hpp"

#include <cstdio>

#include "core/exit_code.hpp"

namespace gd {

// Through %s, as every error line always went: a message is text, cut at a NUL should one hold one.
void print_error(const std::string& message) { std::fprintf(stderr, "gpudoctor: error: %s\n", message.c_str()); }

int usage_error(const std::string& message) {
  print_error(message);
  return static_cast<int>(ExitCode::usage_error);
}

}  // namespace gd
