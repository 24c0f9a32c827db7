#include "report/markdown_text.hpp"

#include <algorithm>

namespace gd::md {
namespace {

/// Length of the valid UTF-8 sequence at `at`, or 0 (overlong forms, surrogates and code points
/// above U+10FFFF are invalid, as in RFC 3629).
std::size_t sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  }
  unsigned char second = byte(at + 1);
  if (lead == 0xE0 && second < 0xA0) return 0;  // overlong
  if (lead == 0xED && second > 0x9F) return 0;  // UTF-16 surrogate
  if (lead == 0xF0 && second < 0x90) return 0;  // overlong
  if (lead == 0xF4 && second > 0x8F) return 0;  // above U+10FFFF
  return length;
}

std::size_t longest_backtick_run(std::string_view text) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string clean(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      out += '\n';
      i += i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
      continue;
    }
    if (c < 0x20 && c != '\n' && c != '\t') {
      ++i;
      continue;
    }
    std::size_t length = sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string shorten(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "…";
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out;
}

std::string inline_text(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      // CommonMark's backslash escapes, which Python-Markdown knows too.
      case '\\': out += "\\\\"; break;
      case '`': out += "\\`"; break;
      case '*': out += "\\*"; break;
      case '_': out += "\\_"; break;
      case '[': out += "\\["; break;
      case ']': out += "\\]"; break;
      // HTML, and what only GitHub reads as syntax (a table cell's end, strikethrough, math):
      // character references, since Python-Markdown would print a backslash before these.
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '|': out += "&#124;"; break;
      case '~': out += "&#126;"; break;
      case '$': out += "&#36;"; break;
      case '\n': out += "<br>"; break;
      case '\t': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '\n' || c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code_span(std::string_view text) {
  std::string body = one_line(text);
  std::string fence(longest_backtick_run(body) + 1, '`');
  // A space on each side is stripped by the parser; it keeps a backtick at either end of the
  // value from joining the fence, and an empty value from being a fence of its own.
  bool pad = body.empty() || body.front() == '`' || body.back() == '`' || body.front() == ' ' || body.back() == ' ';
  return pad ? fence + " " + body + " " + fence : fence + body + fence;
}

std::string code_block(std::string_view content) {
  std::string fence(std::max<std::size_t>(3, longest_backtick_run(content) + 1), '`');
  std::string out = fence + "\n";
  out += content;
  if (!content.empty() && content.back() != '\n') out += '\n';
  out += fence + "\n";
  return out;
}

std::string link_or_code(std::string_view reference) {
  bool url = reference.starts_with("https://") || reference.starts_with("http://");
  bool plain = std::none_of(reference.begin(), reference.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ' || c == '<' || c == '>' || c == '`' || c == '\\' || c == '|';
  });
  if (url && plain) return "<" + std::string(reference) + ">";
  return code_span(reference);
}

}  // namespace gd::md
