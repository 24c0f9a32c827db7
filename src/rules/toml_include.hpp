#pragma once
// toml++ (Debian's 3.3), with its internal assertions turned into checks that throw. Its parser
// asserts things about the input in debug builds and *assumes* them in release builds
// (TOML_ASSERT_ASSUME -> __builtin_assume), where a file that breaks one (found by the rules fuzz
// target: "[:x]" as a table header, a value that starts at a terminator) is undefined behaviour.
// Here a broken assumption becomes an exception, which the rule loader reports as a syntax error
// of that file. Every translation unit that uses toml++ includes it through this header.

#include <stdexcept>

#ifdef TOML_ASSERT
#error "include toml++ only through rules/toml_include.hpp"
#endif
#ifdef NDEBUG
#define GD_TOML_NDEBUG_WAS_SET
#undef NDEBUG
#endif
#define TOML_ASSERT(expr)                                                                 \
  do {                                                                                    \
    if (!(expr)) throw std::runtime_error("the TOML parser met input it does not expect"); \
  } while (false)
#include <toml++/toml.h>
#ifdef GD_TOML_NDEBUG_WAS_SET
#define NDEBUG
#undef GD_TOML_NDEBUG_WAS_SET
#endif
