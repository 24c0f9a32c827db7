#pragma once
// Recoverable errors are values (GUIDE 5.3): std::expected<T, Error>.

#include <expected>
#include <string>

namespace gd {

/// An error with a human message; rule files and captures also carry where it happened.
struct Error {
  std::string message;
  std::string file;  ///< file the error is about, empty when none
  int line = 0;      ///< 1-based line in `file`, 0 when unknown

  /// "file:line: message", "file: message" or "message".
  std::string describe() const;
};

template <typename T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message, std::string file = {}, int line = 0) {
  return std::unexpected(Error{std::move(message), std::move(file), line});
}

}  // namespace gd
