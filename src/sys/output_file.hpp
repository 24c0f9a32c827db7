#pragma once
// The one file gpudoctor ever writes, and only when the user names it (--textfile): written
// atomically, so that a reader (node_exporter's textfile collector) sees the old file or the
// new one, never a partial one. The path is the user's, not the inspected host's: --root does
// not apply to it.

#include <expected>
#include <string>
#include <string_view>

namespace gd {

/// Checks, before a run, that `path` can be written: its folder exists, is a folder and is
/// writable, and `path` is a regular file or nothing: not a folder, a symbolic link (never
/// followed), a FIFO or a device node (as root, /dev/null). The error is one line naming the path.
std::expected<void, std::string> check_output_path(const std::string& path);

/// Writes `content` to `path`: a temporary file in the same folder (".NAME.XXXXXX", which
/// node_exporter's *.prom glob does not match, created with O_EXCL|O_NOFOLLOW), written in
/// full, fsync'd, given `mode`, then renamed over `path` (checked again just before), and the
/// folder fsync'd. On any failure the temporary file is removed and `path` is left as it was;
/// the error is one line naming the path. SIGTERM, SIGINT, SIGHUP or SIGQUIT during the write
/// remove it too, then act as they would have (their handler is only installed meanwhile).
std::expected<void, std::string> write_file_atomically(const std::string& path, std::string_view content,
                                                       unsigned mode);

}  // namespace gd
