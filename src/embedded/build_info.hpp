#pragma once
// What the build knows about itself, for `gpudoctor --version`: written at build time by
// cmake/BuildInfo.cmake (the commit from git, or from a source archive), nothing that differs
// between two builds of one commit.

#include <string_view>

namespace gd {

/// The first 12 hex digits of the commit built, "-dirty" appended when the tree differed
/// from it, "unknown" when the source had neither git nor a filled-in cmake/source_commit.txt.
std::string_view build_commit();

/// The target: "x86_64-linux-musl", "aarch64-linux-musl" (a sanitizer build says so).
std::string_view build_target();

}  // namespace gd
