#include "util/bounded_json.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <vector>

#include "util/secret_scrub.hpp"
#include "util/terminal_text.hpp"

namespace gd {
namespace {

using nlohmann::json;

constexpr std::size_t k_chunk_bytes = std::size_t{64} << 10;
constexpr std::size_t k_max_token_shown = 40;  // of the last token, in a parse error

std::string mib(std::size_t bytes) {
  return bytes % (std::size_t{1} << 20) == 0 ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} bytes", bytes);
}

/// Thrown by the source to stop the parse where it is, and caught in parse_bounded_json (it
/// never leaves this file). Ending the text instead would let the parser build its error
/// message, which quotes the token whole, several times over: 200 MB for one 32 MiB string.
struct SourceStopped {};

/// The text, chunk by chunk, as nlohmann's lexer takes it: one byte at a time. Every byte passes
/// a small scanner that knows whether it is inside a string, so that one token can be refused
/// before the lexer has buffered all of it (nlohmann keeps a token whole until it ends). A bound
/// passed or a read error stops the parse (SourceStopped) with its reason kept here.
class ChunkSource {
 public:
  ChunkSource(const JsonChunkReader& read, const JsonBounds& bounds) : m_read(read), m_bounds(bounds), m_buffer(k_chunk_bytes) {}

  /// Whether the text has ended (or was ended here); refills the buffer as needed.
  bool at_end() {
    if (m_pos < m_len) return false;
    if (m_ended) return true;
    auto n = m_read(m_buffer);
    if (!n) return end_with("read failed: " + n.error());
    if (*n == 0) {
      m_ended = true;
      return true;
    }
    if (m_offset + *n > m_bounds.max_bytes) return end_with("larger than " + mib(m_bounds.max_bytes) + ": not read");
    m_pos = 0;
    m_len = *n;
    return false;
  }

  char peek() const { return m_buffer[m_pos]; }

  void advance() {
    scan(m_buffer[m_pos]);
    ++m_pos;
    ++m_offset;
  }

  std::size_t offset() const { return m_offset; }
  const std::string& problem() const { return m_problem; }

 private:
  const JsonChunkReader& m_read;
  const JsonBounds& m_bounds;
  std::vector<char> m_buffer;
  std::size_t m_pos = 0;
  std::size_t m_len = 0;
  std::size_t m_offset = 0;  ///< bytes handed to the lexer
  bool m_ended = false;
  std::string m_problem;
  // The scanner.
  bool m_in_string = false;
  bool m_escape = false;
  std::size_t m_token = 0;  ///< bytes of the string or literal being read

  [[noreturn]] bool end_with(std::string problem) {
    if (m_problem.empty()) m_problem = std::move(problem);
    m_ended = true;
    m_pos = m_len = 0;
    throw SourceStopped{};
  }

  void scan(char c) {
    if (m_in_string) {
      if (m_escape) {
        m_escape = false;
      } else if (c == '\\') {
        m_escape = true;
      } else if (c == '"') {
        m_in_string = false;
        m_token = 0;
        return;
      }
      if (++m_token > m_bounds.max_one_string) {
        end_with(fmt::format("a string longer than {} at byte {}: not read", mib(m_bounds.max_one_string), m_offset));
      }
      return;
    }
    switch (c) {
      case '"': m_in_string = true; m_token = 0; return;
      case '{': case '}': case '[': case ']': case ',': case ':': case ' ': case '\t': case '\n': case '\r':
        m_token = 0;
        return;
      default:
        if (++m_token > m_bounds.max_one_literal) {
          end_with(fmt::format("a number or literal longer than {} bytes at byte {}: not read", m_bounds.max_one_literal,
                               m_offset));
        }
    }
  }
};

/// The input iterator nlohmann's iterator_input_adapter reads from (it compares with the end,
/// dereferences, advances); every copy shares the one source.
class ChunkIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  ChunkIterator() = default;
  explicit ChunkIterator(ChunkSource* source) : m_source(source) {}

  char operator*() const { return m_source->peek(); }
  ChunkIterator& operator++() {
    m_source->advance();
    return *this;
  }
  ChunkIterator operator++(int) {
    ChunkIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const ChunkIterator& other) const { return done() == other.done(); }
  bool operator!=(const ChunkIterator& other) const { return !(*this == other); }

 private:
  ChunkSource* m_source = nullptr;
  bool done() const { return m_source == nullptr || m_source->at_end(); }
};

/// Counts what the document costs, refuses it past a bound, and hands each event to nlohmann's
/// own tree builder (the one json::parse uses), so the tree is the one json::parse would make.
class BoundedSax : public nlohmann::json_sax<json> {
 public:
  BoundedSax(json& result, const JsonBounds& bounds, const ChunkSource& source)
      : m_dom(result, /*allow_exceptions=*/false), m_bounds(bounds), m_source(source) {}

  std::string problem;  ///< why the parse stopped; empty when it did not

  bool null() override { return item() && m_dom.null(); }
  bool boolean(bool value) override { return item() && m_dom.boolean(value); }
  bool number_integer(number_integer_t value) override { return item() && m_dom.number_integer(value); }
  bool number_unsigned(number_unsigned_t value) override { return item() && m_dom.number_unsigned(value); }
  bool number_float(number_float_t value, const string_t& text) override {
    return item() && m_dom.number_float(value, text);
  }
  bool string(string_t& value) override { return item() && strings(value.size()) && m_dom.string(value); }
  bool binary(binary_t& value) override { return item() && m_dom.binary(value); }  // not made by the JSON reader
  bool key(string_t& value) override { return item() && strings(value.size()) && m_dom.key(value); }
  bool start_object(std::size_t size) override { return item() && deeper() && m_dom.start_object(size); }
  bool start_array(std::size_t size) override { return item() && deeper() && m_dom.start_array(size); }
  bool end_object() override {
    --m_depth;
    return m_dom.end_object();
  }
  bool end_array() override {
    --m_depth;
    return m_dom.end_array();
  }

  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception&) override {
    // The token is quoted to help find the fault, and the file may be anything: a few bytes of
    // it, escaped for a terminal (nlohmann already shows control bytes as <U+0000>), and a
    // token of a documented shape removed while it is whole, before the cut.
    std::string whole = scrub_known_secrets(last_token);
    std::string token = whole.size() > k_max_token_shown ? whole.substr(0, k_max_token_shown) + "..." : whole;
    stop(fmt::format("not valid JSON at byte {} (last read: '{}')", position, terminal_safe(token)));
    return false;
  }

 private:
  nlohmann::detail::json_sax_dom_parser<json> m_dom;
  const JsonBounds& m_bounds;
  const ChunkSource& m_source;
  std::size_t m_depth = 0;
  std::size_t m_items = 0;
  std::size_t m_string_bytes = 0;

  bool stop(std::string why) {
    if (problem.empty()) problem = std::move(why);
    return false;
  }

  bool item() {
    if (++m_items <= m_bounds.max_items) return true;
    return stop(fmt::format("more than {} values at byte {}: not read", m_bounds.max_items, m_source.offset()));
  }

  bool strings(std::size_t size) {
    m_string_bytes += size;
    if (m_string_bytes <= m_bounds.max_string_bytes) return true;
    return stop(fmt::format("its strings take more than {} at byte {}: not read", mib(m_bounds.max_string_bytes),
                            m_source.offset()));
  }

  bool deeper() {
    if (++m_depth <= m_bounds.max_depth) return true;
    return stop(fmt::format("nested more than {} levels deep at byte {}: not read", m_bounds.max_depth, m_source.offset()));
  }
};

}  // namespace

std::expected<json, std::string> parse_bounded_json(const JsonChunkReader& read, const JsonBounds& bounds) {
  ChunkSource source(read, bounds);
  json result;
  BoundedSax sax(result, bounds, source);
  bool parsed = false;
  try {
    parsed = json::sax_parse(ChunkIterator(&source), ChunkIterator(), &sax, json::input_format_t::json, /*strict=*/true);
  } catch (const SourceStopped&) {
    return std::unexpected(source.problem());  // the partial tree goes with `result`
  }
  if (!parsed || !sax.problem.empty()) {
    if (sax.problem.empty()) sax.problem = "not valid JSON";
    return std::unexpected(std::move(sax.problem));
  }
  return result;
}

std::expected<json, std::string> parse_bounded_json(std::string_view text, const JsonBounds& bounds) {
  std::size_t at = 0;
  JsonChunkReader read = [&](std::span<char> buffer) -> std::expected<std::size_t, std::string> {
    std::size_t n = std::min(buffer.size(), text.size() - at);
    std::memcpy(buffer.data(), text.data() + at, n);
    at += n;
    return n;
  };
  return parse_bounded_json(read, bounds);
}

}  // namespace gd
