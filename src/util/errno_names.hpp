#pragma once
// errno values as their symbolic names, so captures and reports read "EACCES", not "13",
// and a capture made on one architecture replays on another.

#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// "ENOENT" for ENOENT; "E<number>" for values outside the table.
std::string errno_name(int code);
/// The inverse of errno_name (accepts "E<number>" too).
std::optional<int> errno_from_name(std::string_view name);

}  // namespace gd
