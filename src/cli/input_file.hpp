#pragma once
// Reading a file the user named on the command line (a capture, a report, a rule file):
// bounded in size, refused when it is not a regular file, errors as one clear line.

#include <string>
#include <string_view>

#include "core/error.hpp"

namespace gd {

Result<std::string> read_input_file(std::string_view path, std::size_t max_bytes);

}  // namespace gd
