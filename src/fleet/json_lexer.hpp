#pragma once
// The tokens of JSON text, read in place for speed (issue 27 item 2): a string without escapes is
// a view into the text, plain runs of a string are crossed 8 bytes at a time (SWAR: '"', '\\',
// control and non-ASCII bytes found by word arithmetic, portable C++ for x86_64 and aarch64),
// numbers are checked by their grammar and converted only when one could overflow a double.
// It validates what nlohmann's strict reader validates: UTF-8 (no overlong forms, surrogates or
// code points past U+10FFFF), escapes ("\u" with 4 hex digits, surrogates in pairs), no control
// byte in a string, the number grammar; and it says so in nlohmann's words ("invalid string:
// control character U+000A (LF) must be escaped", "invalid literal"), so that a message reads the
// same as before. A message never quotes the text: it may be any file. Pure.
// The grammar of values (objects, arrays) is fleet/json_scan.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gd {

/// Why a text is not JSON: the byte where reading stopped (text.size() at its end) and what was
/// wrong there.
struct JsonScanError {
  std::size_t offset = 0;
  std::string message;  ///< "syntax error while parsing value - invalid literal"
};

/// "parse error at line 3, column 14: <message>": the line and column (1-based, in bytes) of the
/// byte at error.offset.
std::string json_error_text(std::string_view text, const JsonScanError& error);

class JsonLexer {
 public:
  explicit JsonLexer(std::string_view text) : m_text(text) {}

  /// The byte that starts the next token, after whitespace (space, tab, LF, CR); -1 at the end.
  int next_token_byte() {
    const std::size_t size = m_text.size();
    while (m_pos < size) {
      const auto c = static_cast<unsigned char>(m_text[m_pos]);
      if (c > ' ') return c;
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return c;
      ++m_pos;
    }
    return -1;
  }
  /// Steps over a one-byte token (a structural character).
  void skip_byte() { ++m_pos; }
  /// A UTF-8 byte order mark at the very start (an editor's) is skipped, as nlohmann does; a
  /// broken one is an error. False on that error.
  bool skip_bom();

  /// At '"': the string's content, a view into the text, or into `scratch` when it has escapes
  /// (decoded there). False on an error (error() says which).
  bool read_string(std::string_view& out, std::string& scratch);
  /// At '-' or a digit: the number's text and whether it is an integer (no fraction or exponent).
  bool read_number(std::string_view& out, bool& integral);
  /// At 't', 'f' or 'n': the literal `word` ("true", "false", "null").
  bool read_literal(std::string_view word);

  /// Records an error at `offset` (the first one counts) and returns false.
  bool fail(std::size_t offset, std::string message);
  /// A token's error gets the place of the grammar it was read in, as nlohmann words it:
  /// "syntax error while parsing object key - invalid string: ...". Returns false.
  bool in_context(std::string_view context);
  /// The next token is not one the grammar allows here: "syntax error while parsing array -
  /// unexpected number literal; expected ']'" (the token named by its kind, never quoted).
  bool unexpected(std::string_view context, std::string_view expected);

  std::size_t position() const { return m_pos; }
  const JsonScanError& error() const { return m_error; }
  std::string_view text() const { return m_text; }

 private:
  bool read_escaped(std::size_t begin, std::size_t at, std::string_view& out, std::string& scratch);
  bool read_escape(std::size_t& at, std::string& out);
  bool fail_in_string(std::size_t at);

  std::string_view m_text;
  std::size_t m_pos = 0;
  JsonScanError m_error;
  bool m_error_is_range = false;  ///< a number too large for a double: not a syntax error
};

/// Whether a number's text (by the JSON grammar) is finite as a double; nlohmann refuses one that
/// is not ("number overflow"). Converts only when the digits and exponent leave it in doubt.
bool json_number_is_finite(std::string_view number);

}  // namespace gd
