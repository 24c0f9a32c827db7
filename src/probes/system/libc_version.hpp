#pragma once
// Which C library the host's programs use (glibc, musl) and glibc's version, without running
// anything: from file names, the ldd script and the version banner inside libc.so.6.

#include <optional>
#include <string>
#include <string_view>

#include "sys/host.hpp"

namespace gd {

/// "2.39" from glibc's banner, csu/version.c: "GNU C Library (Ubuntu GLIBC 2.39-0ubuntu8.9)
/// stable release version 2.39." (also the ld.so.cache generator string "ldconfig (...)
/// stable release version 2.39", elf/cache.c). nullopt when `text` holds none.
std::optional<std::string> glibc_version_from_banner(std::string_view text);

/// "2.39" from glibc's ldd script, whose --version branch is `echo 'ldd (PKGVERSION) VERSION'`
/// (elf/ldd.bash.in); the same line as `ldd --version` prints.
std::optional<std::string> glibc_version_from_ldd(std::string_view script);

/// "2.31" from "libc-2.31.so", the real file name of libc.so.6 before glibc 2.34.
std::optional<std::string> glibc_version_from_file_name(std::string_view name);

/// Searches the .rodata section of the ELF64 file `path` for the banner (bounded to the first
/// 2 MiB of the section). nullopt when it is not there or the file cannot be read.
std::optional<std::string> glibc_version_from_libc_file(Host& host, std::string_view path);

/// What `libc` the host has and, for glibc, its version and where it was read.
struct LibcInfo {
  std::string libc;      ///< "glibc", "musl" or "none"
  std::string version;   ///< glibc version, empty when not known
  std::string source;    ///< the file the version came from
  std::string evidence;  ///< the file that showed which libc this is
};

/// Looks for `arch`'s glibc loader and libc.so.6, the ldd script and musl's loader.
/// `cache_generator` is the ld.so.cache generator string (a last source for the version).
LibcInfo detect_libc(Host& host, std::string_view arch, std::string_view cache_generator);

}  // namespace gd
