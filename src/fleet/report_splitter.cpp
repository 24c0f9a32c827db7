#include "fleet/report_splitter.hpp"

#include <cstdio>

#include "fleet/byte_words.hpp"

namespace gd {
namespace {

constexpr std::size_t k_head_bytes = 8;  // how much of a non-JSON stretch is kept: only to name its format

constexpr std::string_view k_bom = "\xef\xbb\xbf";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_binary_byte(char ch) {
  auto c = static_cast<unsigned char>(ch);
  return c == 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r');
}

// What a non-JSON stretch is, never what it says: it may be any file (a netrc, an /etc/shadow
// line, a token in a URL), so no byte of it is quoted. A few binary formats are named by their
// magic bytes, for the fix (decompress first).
std::string describe_garbage(std::string_view head, bool binary, std::int64_t lines) {
  if (!binary) return "not JSON: text (" + std::to_string(lines) + (lines == 1 ? " line)" : " lines)");
  struct Magic {
    std::string_view bytes;
    std::string_view name;
  };
  static constexpr Magic k_magic[] = {
      {"\x7f" "ELF", "an ELF file"},
      {"\x1f\x8b", "gzip-compressed: decompress it first"},
      {"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it first"},
      {std::string_view("\xfd" "7zXZ\0", 6), "xz-compressed: decompress it first"},
  };
  for (const Magic& m : k_magic) {
    if (head.starts_with(m.bytes)) return "not JSON: binary data (" + std::string(m.name) + ")";
  }
  return "not JSON: binary data";
}

/// The first byte at or after `at` that can change a document's state: in a string '"', '\\' and
/// a newline; outside one those, '{', '[', '}' and ']'. Every other byte only moves on (the
/// bulk of a report: most of its bytes are letters, digits and indentation), 8 at a time.
std::size_t next_document_byte(std::string_view chunk, std::size_t at, bool in_string) {
  using namespace byte_words;
  const char* data = chunk.data();
  const std::size_t size = chunk.size();
  while (at + 8 <= size) {
    const std::uint64_t w = load(data + at);
    std::uint64_t stops = equal(w, '"') | equal(w, '\n');
    if (in_string) {
      stops |= equal(w, '\\');
    } else {
      const std::uint64_t folded = w | (k_ones * 0x20);  // '[' -> '{', ']' -> '}'
      stops |= equal(folded, '{') | equal(folded, '}');
    }
    if (stops != 0) return at + first_match(stops);
    at += 8;
  }
  for (; at < size; ++at) {
    const char c = data[at];
    if (c == '"' || c == '\n') return at;
    if (in_string ? c == '\\' : (c == '{' || c == '[' || c == '}' || c == ']')) return at;
  }
  return at;
}

}  // namespace

void ReportSplitter::start_document(std::int64_t line) {
  m_state = State::document;
  m_doc.clear();
  m_doc_line = line;
  m_doc_bytes = 0;
  m_oversize = false;
  m_depth = 0;
  m_in_string = false;
  m_escape = false;
}

void ReportSplitter::keep(std::string_view bytes) {
  m_doc_bytes += bytes.size();
  if (m_oversize) return;
  if (m_doc.size() + bytes.size() > m_max_bytes) {
    m_oversize = true;
    std::string().swap(m_doc);  // give the memory back now, not at the next document
    return;
  }
  m_doc.append(bytes);
}

void ReportSplitter::end_document(const Sink& sink, std::string_view last) {
  // A document that lies whole in one chunk (the usual case: chunks are large, or a whole file)
  // is passed on where it lies, without a copy.
  const bool in_place = m_doc_bytes == 0 && last.size() <= m_max_bytes;
  if (!in_place) keep(last);
  StreamPiece piece;
  piece.line = m_doc_line;
  if (m_oversize) {
    piece.kind = StreamPiece::Kind::problem;
    std::string bound = m_max_bytes % (1u << 20) == 0 ? std::to_string(m_max_bytes >> 20) + " MiB"
                                                      : std::to_string(m_max_bytes) + " bytes";
    piece.reason = "over the limit of " + bound + " for one report (" + std::to_string(m_doc_bytes) + " bytes): not read";
  } else {
    piece.kind = StreamPiece::Kind::document;
    piece.text = in_place ? last : std::string_view(m_doc);
  }
  sink(piece);
  m_state = State::between;
  m_doc.clear();
}

void ReportSplitter::cut_document(const Sink& sink, std::string reason) {
  StreamPiece piece;
  piece.kind = StreamPiece::Kind::problem;
  piece.line = m_doc_line;
  piece.reason = std::move(reason);
  sink(piece);
  m_state = State::between;
  if (m_doc.capacity() > m_max_bytes / 4) std::string().swap(m_doc);
  m_doc.clear();
}

void ReportSplitter::start_garbage(char first) {
  m_state = State::garbage;
  m_garbage_line = m_line;
  m_garbage_last_line = m_line;
  m_garbage_binary = is_binary_byte(first);
  m_garbage_head.assign(1, first);
}

void ReportSplitter::end_garbage(const Sink& sink) {
  StreamPiece piece;
  piece.kind = StreamPiece::Kind::problem;
  piece.line = m_garbage_line;
  piece.reason = describe_garbage(m_garbage_head, m_garbage_binary, m_garbage_last_line - m_garbage_line + 1);
  sink(piece);
  m_state = State::between;
}

// Inside a document, most bytes change nothing and the rest only the string and depth state: they
// are crossed here, in a tight loop. It stops at what the byte loop of feed() must see: a newline
// (lines are counted, and the next line's first byte checked), the bracket that would close the
// document, an escape at the end of the chunk, or the chunk's end.
std::size_t ReportSplitter::cross_document(std::string_view chunk, std::size_t i) {
  while (true) {
    i = next_document_byte(chunk, i, m_in_string);
    if (i == chunk.size()) return i;
    const char c = chunk[i];
    if (c == '\n') return i;
    if (m_in_string) {
      if (c == '"') {
        m_in_string = false;
      } else {  // a backslash: the byte after it is skipped, unless feed() must see it
        if (i + 1 >= chunk.size() || chunk[i + 1] == '\n') return i;
        ++i;
      }
    } else if (c == '"') {
      m_in_string = true;
    } else if (c == '{' || c == '[') {
      ++m_depth;
    } else if (m_depth <= 1) {
      return i;  // it closes the document
    } else {
      --m_depth;
    }
    ++i;
  }
}

void ReportSplitter::feed(std::string_view chunk, const Sink& sink) {
  std::size_t segment = 0;  // where the open document's bytes in this chunk begin
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    if (m_state == State::document && !m_line_start && !m_escape) {
      i = cross_document(chunk, i);
      if (i == chunk.size()) break;
    }
    const char c = chunk[i];
    const bool line_start = m_line_start;
    m_line_start = c == '\n';
    // A UTF-8 byte order mark at the very start (an editor's) is not data.
    if (m_offset + i < k_bom.size() && m_state == State::between && c == k_bom[m_offset + i]) continue;
    switch (m_state) {
      case State::garbage:
        if (!(line_start && (c == '{' || c == '['))) {
          if (m_garbage_head.size() < k_head_bytes) m_garbage_head += c;
          if (is_binary_byte(c)) m_garbage_binary = true;
          if (!is_space(c)) m_garbage_last_line = m_line;
          break;
        }
        end_garbage(sink);
        [[fallthrough]];
      case State::between:
        if (c == '{' || c == '[') {
          start_document(m_line);
          segment = i;
        } else if (!is_space(c)) {
          start_garbage(c);
          break;
        } else {
          break;
        }
        [[fallthrough]];
      case State::document: {
        if (line_start && c == '{' && m_depth > 0) {
          // A new report begins before this one ended: this one was cut off (and is dropped).
          cut_document(sink, "truncated: a new report begins on line " + std::to_string(m_line) +
                                 " before this one ends");
          start_document(m_line);
          segment = i;
        }
        if (m_in_string) {
          if (m_escape) {
            m_escape = false;
          } else if (c == '\\') {
            m_escape = true;
          } else if (c == '"' || c == '\n') {  // a raw newline ends no valid string: the parser says so
            m_in_string = false;
          }
        } else if (c == '"') {
          m_in_string = true;
        } else if (c == '{' || c == '[') {
          ++m_depth;
        } else if (c == '}' || c == ']') {
          if (--m_depth == 0) {
            end_document(sink, chunk.substr(segment, i + 1 - segment));
          }
        }
        break;
      }
    }
    if (c == '\n') ++m_line;
  }
  if (m_state == State::document) keep(chunk.substr(segment));
  m_offset += chunk.size();
}

void ReportSplitter::finish(const Sink& sink) {
  if (m_state == State::document) {
    cut_document(sink, "truncated: the input ends inside this report (" + std::to_string(m_doc_bytes) +
                           " bytes of it)");
  } else if (m_state == State::garbage) {
    end_garbage(sink);
  }
}

}  // namespace gd
