#pragma once
// Cuts a byte stream into JSON documents without parsing them: JSON Lines, reports printed one
// after another (`gpudoctor --json` prints indented JSON over many lines), or one report per
// file. Fed in chunks, it keeps at most one document (bounded) in memory, so a stream of any
// length costs the same. What is not a document becomes a problem with its line, and the next
// document is found again:
//   - text or binary data between documents: one problem per stretch, up to the next line that
//     starts with '{' or '[', which says how many lines of text it is or that it is binary, and
//     never quotes it (it may be any file: a netrc, a shadow line, a token);
//   - a document that a line starting with '{' interrupts (no report prints '{' at the start of
//     a line inside itself: nested values are indented), or that the input ends inside: truncated;
//   - a document longer than the bound: skipped to its end, without being kept.
// Pure: no file is read here (sys/input_files does that).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace gd {

/// A document cut from the stream, or a stretch of it that is none.
struct StreamPiece {
  enum class Kind { document, problem };
  Kind kind = Kind::document;
  std::int64_t line = 1;   ///< the line it starts on (1-based)
  std::string_view text;   ///< the document's text; valid only during the callback
  std::string reason;      ///< why a problem is one
};

class ReportSplitter {
 public:
  using Sink = std::function<void(const StreamPiece&)>;

  explicit ReportSplitter(std::size_t max_document_bytes) : m_max_bytes(max_document_bytes) {}

  /// The next bytes of the stream; `sink` gets each piece that ends in them.
  void feed(std::string_view chunk, const Sink& sink);
  /// The stream ended: what is still open is reported (a truncated document, trailing data).
  void finish(const Sink& sink);
  /// Bytes of the stream seen so far.
  std::uint64_t bytes_seen() const { return m_offset; }

 private:
  enum class State { between, document, garbage };

  void start_document(std::int64_t line);
  void end_document(const Sink& sink, std::string_view last);
  void cut_document(const Sink& sink, std::string reason);
  void start_garbage(char first);
  void end_garbage(const Sink& sink);
  void keep(std::string_view bytes);
  std::size_t cross_document(std::string_view chunk, std::size_t i);

  std::size_t m_max_bytes;
  State m_state = State::between;
  std::int64_t m_line = 1;        ///< line of the byte being looked at
  bool m_line_start = true;       ///< the byte being looked at begins a line
  std::uint64_t m_offset = 0;
  // The open document.
  std::string m_doc;
  std::int64_t m_doc_line = 1;
  std::uint64_t m_doc_bytes = 0;  ///< its length so far, kept or not
  bool m_oversize = false;        ///< longer than the bound: no longer kept
  int m_depth = 0;
  bool m_in_string = false;
  bool m_escape = false;
  // The open stretch of non-JSON data: where it began and how it looked.
  std::int64_t m_garbage_line = 1;
  std::int64_t m_garbage_last_line = 1;  ///< the last line with a non-blank byte of it
  bool m_garbage_binary = false;         ///< it holds a control byte (not tab, CR, LF)
  std::string m_garbage_head;            ///< its first bytes, only to name a binary format; never shown
};

}  // namespace gd
