#pragma once
#include <string>

namespace gd {
/// "SIGSEGV" for SIGSEGV; "signal N" for others.
std::string signal_name(int signal);
}  // namespace gd
