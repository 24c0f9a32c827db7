#pragma once
// The one error line every subcommand prints on stderr: "gpudoctor: error: MESSAGE".

#include <string>

namespace gd {

/// Prints "gpudoctor: error: MESSAGE" and a newline on stderr.
void print_error(const std::string& message);

/// print_error, then the exit code of a usage error (2: gpudoctor could not do what was asked).
int usage_error(const std::string& message);

}  // namespace gd
