#pragma once
// Checks a rule file for the TOML shapes that toml++ 3.3 (Debian's) assumes never occur: a
// table header whose name does not start like a key ("[:x]", "[ = ]"), and non-ASCII characters
// outside strings and comments (its Unicode whitespace table is "unreachable" for some of them).
// toml++ only asserts those in debug builds and assumes them in release ones, where anything may
// follow; found by the rules fuzz target. Such a file is refused with its line before toml++ sees it.

#include <string>
#include <string_view>

namespace gd {

struct TomlGuardProblem {
  int line = 0;  ///< 1-based; 0 when the text is fine
  std::string message;
};

/// Scans `text` as TOML's lexical structure (strings, comments, nested arrays and inline tables)
/// and reports the first table header that does not start with a key name.
TomlGuardProblem find_unparseable_toml(std::string_view text);

}  // namespace gd
