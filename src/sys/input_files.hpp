#pragma once
// The one reader of the files the user names on the command line (reports and captures for
// `replay`, `diff` and `fleet`, the image configuration of a pre-flight), never the host under
// diagnosis; rule files are read by rules/rule_files, which rulec shares and which may not
// include sys/. Everything here is bounded and never blocks: a FIFO, socket or device is
// refused before it is opened (and again after, should it have been swapped in between), files
// are read in chunks by the caller, folders are walked without following links out of them.
// Failures are reasons for the reader ("Permission denied", "a FIFO, not a regular file"), so
// that one bad input is listed and the run goes on.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <expected>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "util/bounded_json.hpp"

namespace gd {

/// What a path on the command line is.
enum class InputKind { file, folder, unusable };

struct InputClass {
  InputKind kind = InputKind::unusable;
  std::string reason;  ///< why it is unusable ("No such file or directory", "a FIFO, not a regular file")
};

/// Follows links: a link to a folder named on the command line is walked.
InputClass classify_input(std::string_view path);

/// One open input: a regular file, or standard input. Move-only; closes what it opened.
class InputStream {
 public:
  /// Opens a regular file read-only and non-blocking; anything else is refused with its reason.
  static std::expected<InputStream, std::string> open_file(std::string_view path);
  /// Standard input (the `-` argument). It may be a pipe: reads wait for the writer, as cat's do.
  static InputStream standard_input();
  /// Takes over `fd`, a regular file opened read-only (the folder walk opens its entries), of
  /// `size` bytes when it was opened, if known.
  static InputStream adopt(int fd, std::optional<std::uint64_t> size = std::nullopt);

  InputStream(InputStream&& other) noexcept;
  InputStream& operator=(InputStream&& other) noexcept;
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;
  ~InputStream();

  /// Up to buffer.size() bytes; 0 at the end; the reason on a read error.
  std::expected<std::size_t, std::string> read(std::span<char> buffer);
  /// As read(), appending up to `most` bytes to `text` in place (no copy through a buffer).
  std::expected<std::size_t, std::string> read_append(std::string& text, std::size_t most);

  /// A regular file's size when it was opened (it may have grown since: read to the end all the
  /// same); nullopt for standard input.
  std::optional<std::uint64_t> size_at_open() const { return m_size; }

 private:
  InputStream(int fd, bool owned, std::optional<std::uint64_t> size = std::nullopt)
      : m_fd(fd), m_owned(owned), m_size(size) {}
  int m_fd = -1;
  bool m_owned = false;
  std::optional<std::uint64_t> m_size;
};

/// Reads a whole regular file of at most `max_bytes` (a pre-flight's --image-config).
std::expected<std::string, std::string> read_whole_input(std::string_view path, std::size_t max_bytes);

/// The JSON document in a regular file (a capture for `replay`, a report or capture for `diff`),
/// read in chunks and parsed within `bounds` (util/bounded_json): the text is never held whole
/// and a hostile file is refused at the first bound it passes. Errors are one line without the
/// path ("not valid JSON at byte 12 (last read: '...')", "a FIFO, not a regular file").
std::expected<nlohmann::json, std::string> read_json_input(std::string_view path, const JsonBounds& bounds = {});

/// Gets each input file a folder walk finds: its path, and the file opened or why it cannot be.
using InputFileSink = std::function<void(const std::string&, std::expected<InputStream, std::string>)>;

/// Walks `folder` recursively, names sorted in each folder, calling `on_file` for each entry
/// whose name ends with one of `suffixes` (a FIFO so named is passed on with its reason, never
/// opened) and `on_problem(path, reason)` for a folder that cannot be listed or lies too deep.
/// Entries are opened relative to their folder without following links, so that nothing swapped
/// in meanwhile leads out of it. A link is followed only to a file beneath `folder` (one that
/// leads out is passed on with its reason, unread); links to folders are not followed (no loops).
void walk_input_folder(std::string_view folder, std::span<const std::string_view> suffixes, const InputFileSink& on_file,
                       const std::function<void(const std::string&, const std::string&)>& on_problem);

}  // namespace gd
