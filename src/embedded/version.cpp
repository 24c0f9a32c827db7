#include "embedded/version.hpp"

#include <fmt/format.h>

#include "embedded/build_info.hpp"

namespace gd {

std::string version_line() { return fmt::format("gpudoctor {} (commit {}, {})", GD_VERSION, build_commit(), build_target()); }

}  // namespace gd
