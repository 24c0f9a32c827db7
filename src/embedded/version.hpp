#pragma once
#include <string>

namespace gd {

/// `gpudoctor --version`: "gpudoctor 0.1.0 (commit 0123456789ab, x86_64-linux-musl)".
std::string version_line();

}  // namespace gd
