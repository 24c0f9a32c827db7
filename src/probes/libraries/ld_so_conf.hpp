#pragma once
// /etc/ld.so.conf and the files it includes: the folders ldconfig puts into ld.so.cache. The
// loader never reads these files; they say what the cache holds after the next `ldconfig`, and
// where a stray folder (a toolkit stubs/ or compat/ folder) came from.
// Syntax: glibc elf/ldconfig.c parse_conf() and parse_conf_include().

#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

/// One meaningful line of a file: a folder, or one glob pattern of an `include` line.
struct LdSoConfItem {
  bool include = false;  ///< `text` is a pattern naming more files
  std::string text;      ///< the folder (trailing slashes removed) or the pattern as written
};

/// Parses one ld.so.conf-format text, in order: '#' starts a comment, leading blanks are
/// skipped, "include PATTERN..." names more files, "hwcap ..." is ignored (as ldconfig does),
/// any other line is one folder.
std::vector<LdSoConfItem> parse_ld_so_conf(std::string_view text);

/// Whether `name` matches the glob `pattern` (one path component; '*', '?', '[...]'; a
/// leading '.' is only matched by a literal '.', as glob(3) without GLOB_PERIOD).
bool glob_match(std::string_view pattern, std::string_view name);

/// The folders of `path` (normally /etc/ld.so.conf) and of every file its include lines
/// name, depth first, in the order ldconfig reads them. Bounded: 8 levels of includes, 256
/// files, 1024 folders. Files that cannot be read are listed in `unreadable` ("path: ENOENT"
/// for a missing top file only; missing included files are normal).
struct LdSoConf {
  std::vector<std::string> dirs;
  std::vector<std::string> files;       ///< every file read, in order
  std::vector<std::string> unreadable;  ///< "path: EACCES (...)"
  bool top_missing = false;             ///< `path` itself does not exist
};
LdSoConf read_ld_so_conf(Host& host, std::string_view path);

}  // namespace gd
