#pragma once
// /etc/os-release (or /usr/lib/os-release): which distribution this is, for fix commands and
// for the distributions that keep the driver elsewhere (NixOS). Format: os-release(5),
// https://www.freedesktop.org/software/systemd/man/latest/os-release.html

#include <map>
#include <string>
#include <string_view>

namespace gd {

/// The KEY=value assignments of an os-release file. Values may be quoted with "..." or '...';
/// inside double quotes \" \\ \$ \` are escapes. Comments and malformed lines are skipped.
std::map<std::string, std::string> parse_os_release(std::string_view text);

}  // namespace gd
