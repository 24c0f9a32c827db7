#include "fleet/json_lexer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "fleet/byte_words.hpp"
#include "util/text_codec.hpp"

namespace gd {
namespace {

using namespace byte_words;

/// '"', '\\', a control byte or a non-ASCII byte: what a string's plain run stops at.
std::uint64_t string_stops(std::uint64_t w) { return equal(w, '"') | equal(w, '\\') | below(w, 0x20) | non_ascii(w); }

bool is_string_stop(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; }

/// The offset of the first string stop at or after `at`, or text.size().
std::size_t find_string_stop(std::string_view text, std::size_t at) {
  const char* data = text.data();
  const std::size_t size = text.size();
  while (at + 8 <= size) {
    if (std::uint64_t stops = string_stops(load(data + at)); stops != 0) return at + first_match(stops);
    at += 8;
  }
  while (at < size && !is_string_stop(static_cast<unsigned char>(data[at]))) ++at;
  return at;
}

// nlohmann's names of the control characters in its message (lexer.hpp, scan_string).
constexpr const char* k_control_names[32] = {"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL",
                                             "BS",  "HT",  "LF",  "VT",  "FF",  "CR",  "SO",  "SI",
                                             "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
                                             "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The 4 hex digits at text[at], or -1.
int hex4(std::string_view text, std::size_t at) {
  if (at + 4 > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    int digit = hex_value(text[i]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string json_error_text(std::string_view text, const JsonScanError& error) {
  std::size_t offset = error.offset < text.size() ? error.offset : text.size();
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t at = text.find('\n'); at != std::string_view::npos && at < offset; at = text.find('\n', at + 1)) {
    ++line;
    line_start = at + 1;
  }
  return "parse error at line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1) + ": " +
         error.message;
}

bool json_number_is_finite(std::string_view number) {
  // |x| < 10^(integer digits + exponent): at most 10^308 is always finite (DBL_MAX is 1.79e308).
  std::size_t at = number.starts_with('-') ? 1 : 0;
  std::size_t int_digits = 0;
  while (at < number.size() && is_digit(number[at])) ++at, ++int_digits;
  if (number.size() - (number.starts_with('-') ? 1 : 0) == int_digits && int_digits <= 308) return true;
  std::size_t e = number.find_first_of("eE");
  long exponent = 0;
  if (e != std::string_view::npos) {
    std::size_t i = e + 1;
    bool negative = i < number.size() && number[i] == '-';
    if (i < number.size() && (number[i] == '-' || number[i] == '+')) ++i;
    for (; i < number.size() && exponent < 100000; ++i) exponent = exponent * 10 + (number[i] - '0');
    if (negative) exponent = -exponent;
  }
  if (static_cast<long>(int_digits) + exponent <= 308) return true;
  // In doubt: convert, as nlohmann does (strtod of the whole token).
  std::string copy(number);
  return std::isfinite(std::strtod(copy.c_str(), nullptr));
}

bool JsonLexer::fail(std::size_t offset, std::string message) {
  if (m_error.message.empty()) m_error = JsonScanError{offset, std::move(message)};
  return false;
}

bool JsonLexer::in_context(std::string_view context) {
  if (!m_error_is_range && !m_error.message.starts_with("syntax error")) {
    m_error.message = "syntax error while parsing " + std::string(context) + " - " + m_error.message;
  }
  return false;
}

bool JsonLexer::unexpected(std::string_view context, std::string_view expected) {
  const int c = next_token_byte();
  std::string found;
  switch (c) {
    case -1: found = "end of input"; break;
    case '[': found = "'['"; break;
    case ']': found = "']'"; break;
    case '{': found = "'{'"; break;
    case '}': found = "'}'"; break;
    case ':': found = "':'"; break;
    case ',': found = "','"; break;
    case '"': found = "string literal"; break;
    case 't': found = "true literal"; break;
    case 'f': found = "false literal"; break;
    case 'n': found = "null literal"; break;
    default:
      if (c == '-' || (c >= '0' && c <= '9')) {
        found = "number literal";
      } else {
        fail(m_pos, "invalid literal");  // a byte no token starts with (nlohmann's word for it)
        return in_context(context);
      }
  }
  fail(m_pos, "syntax error while parsing " + std::string(context) + " - unexpected " + found + "; expected " +
                  std::string(expected));
  return false;
}

bool JsonLexer::skip_bom() {
  if (m_pos != 0 || m_text.empty() || static_cast<unsigned char>(m_text[0]) != 0xef) return true;
  if (m_text.starts_with("\xef\xbb\xbf")) {
    m_pos = 3;
    return true;
  }
  return fail(0, "invalid BOM; must be 0xEF 0xBB 0xBF if given");
}

bool JsonLexer::fail_in_string(std::size_t at) {
  if (at >= m_text.size()) return fail(m_text.size(), "invalid string: missing closing quote");
  const auto c = static_cast<unsigned char>(m_text[at]);
  if (c < 0x20) {
    char code[8];
    std::snprintf(code, sizeof code, "%04X", c);
    std::string message = std::string("invalid string: control character U+") + code + " (" + k_control_names[c] +
                          ") must be escaped to \\u" + code;
    switch (c) {  // and the short escape, where JSON has one
      case '\b': message += " or \\b"; break;
      case '\t': message += " or \\t"; break;
      case '\n': message += " or \\n"; break;
      case '\f': message += " or \\f"; break;
      case '\r': message += " or \\r"; break;
      default: break;
    }
    return fail(at, std::move(message));
  }
  return fail(at, "invalid string: ill-formed UTF-8 byte");
}

bool JsonLexer::read_string(std::string_view& out, std::string& scratch) {
  const std::size_t begin = m_pos + 1;  // after the opening quote
  std::size_t at = begin;
  while (true) {
    at = find_string_stop(m_text, at);
    if (at >= m_text.size()) return fail_in_string(at);
    const auto c = static_cast<unsigned char>(m_text[at]);
    if (c == '"') {
      out = m_text.substr(begin, at - begin);
      m_pos = at + 1;
      return true;
    }
    if (c == '\\') return read_escaped(begin, at, out, scratch);
    if (c < 0x80) return fail_in_string(at);
    const std::size_t length = utf8_sequence_length(m_text, at);
    if (length == 0) return fail_in_string(at);
    at += length;
  }
}

// A string with escapes: decoded into `scratch` from its first backslash at `at` on.
bool JsonLexer::read_escaped(std::size_t begin, std::size_t at, std::string_view& out, std::string& scratch) {
  scratch.assign(m_text.substr(begin, at - begin));
  while (true) {
    // m_text[at] is a stop byte.
    const auto c = static_cast<unsigned char>(m_text[at]);
    if (c == '"') break;
    if (c == '\\') {
      if (!read_escape(at, scratch)) return false;
    } else if (c < 0x80) {
      return fail_in_string(at);
    } else {
      const std::size_t length = utf8_sequence_length(m_text, at);
      if (length == 0) return fail_in_string(at);
      scratch.append(m_text.substr(at, length));
      at += length;
    }
    const std::size_t stop = find_string_stop(m_text, at);
    scratch.append(m_text.substr(at, stop - at));
    at = stop;
    if (at >= m_text.size()) return fail_in_string(at);
  }
  out = scratch;
  m_pos = at + 1;
  return true;
}

// One escape at m_text[at] == '\\': appended decoded, `at` moved past it.
bool JsonLexer::read_escape(std::size_t& at, std::string& out) {
  if (at + 1 >= m_text.size()) return fail(m_text.size(), "invalid string: missing closing quote");
  const char kind = m_text[at + 1];
  switch (kind) {
    case '"': out += '"'; break;
    case '\\': out += '\\'; break;
    case '/': out += '/'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'u': {
      int unit = hex4(m_text, at + 2);
      if (unit < 0) return fail(at + 2, "invalid string: '\\u' must be followed by 4 hex digits");
      std::uint32_t cp = static_cast<std::uint32_t>(unit);
      at += 6;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        // A high surrogate: the low one must follow at once, as another \u escape.
        if (at + 1 < m_text.size() && m_text[at] == '\\' && m_text[at + 1] == 'u') {
          int low = hex4(m_text, at + 2);
          if (low < 0) return fail(at + 2, "invalid string: '\\u' must be followed by 4 hex digits");
          if (low < 0xdc00 || low > 0xdfff) {
            return fail(at, "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
          }
          cp = 0x10000 + ((cp - 0xd800) << 10) + (static_cast<std::uint32_t>(low) - 0xdc00);
          at += 6;
        } else {
          return fail(at, "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
        }
      } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        return fail(at - 6, "invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF");
      }
      append_utf8(out, cp);
      return true;
    }
    default: return fail(at + 1, "invalid string: forbidden character after backslash");
  }
  at += 2;
  return true;
}

bool JsonLexer::read_number(std::string_view& out, bool& integral) {
  const std::size_t begin = m_pos;
  const std::size_t size = m_text.size();
  std::size_t at = begin;
  auto digit_at = [&](std::size_t i) { return i < size && is_digit(m_text[i]); };
  if (m_text[at] == '-') {
    ++at;
    if (!digit_at(at)) return fail(at, "invalid number; expected digit after '-'");
  }
  if (m_text[at] == '0') {
    ++at;
  } else {
    while (digit_at(at)) ++at;
  }
  integral = true;
  if (at < size && m_text[at] == '.') {
    ++at;
    if (!digit_at(at)) return fail(at, "invalid number; expected digit after '.'");
    while (digit_at(at)) ++at;
    integral = false;
  }
  if (at < size && (m_text[at] == 'e' || m_text[at] == 'E')) {
    ++at;
    if (at < size && (m_text[at] == '+' || m_text[at] == '-')) {
      ++at;
      if (!digit_at(at)) return fail(at, "invalid number; expected digit after exponent sign");
    } else if (!digit_at(at)) {
      return fail(at, "invalid number; expected '+', '-', or digit after exponent");
    }
    while (digit_at(at)) ++at;
    integral = false;
  }
  out = m_text.substr(begin, at - begin);
  if (!json_number_is_finite(out)) {
    fail(begin, "number overflow: it is too large for a double");
    m_error_is_range = true;  // no syntax error: no context is added
    return false;
  }
  m_pos = at;
  return true;
}

bool JsonLexer::read_literal(std::string_view word) {
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (m_pos + i >= m_text.size() || m_text[m_pos + i] != word[i]) {
      return fail(m_pos + i, "invalid literal");
    }
  }
  m_pos += word.size();
  return true;
}

}  // namespace gd
