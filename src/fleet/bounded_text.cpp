#include "fleet/bounded_text.hpp"

#include "util/terminal_text.hpp"

namespace gd {
namespace {

/// The longest prefix of at most `limit` bytes that does not end inside a UTF-8 sequence.
std::size_t utf8_cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text.size();
  std::size_t cut = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the character cut in two.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  return cut;
}

}  // namespace

void assign_bounded(std::string& out, std::string_view text, std::size_t limit) {
  if (text.size() <= limit) {
    out.assign(text);
    return;
  }
  out.assign(text.substr(0, utf8_cut(text, limit > 3 ? limit - 3 : 0)));
  out += "...";
}

std::string printable(std::string_view text) { return terminal_safe(text); }

std::string printable_cut(std::string_view text, std::size_t limit) {
  std::string out;
  assign_bounded(out, text, limit);
  return printable(out);
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare the two numbers: without leading zeros, the longer is larger; else digit by digit.
      std::size_t a0 = i, b0 = j;
      while (a0 < a.size() && a[a0] == '0') ++a0;
      while (b0 < b.size() && b[b0] == '0') ++b0;
      std::size_t a1 = a0, b1 = b0;
      while (a1 < a.size() && is_digit(a[a1])) ++a1;
      while (b1 < b.size() && is_digit(b[b1])) ++b1;
      if (a1 - a0 != b1 - b0) return a1 - a0 < b1 - b0;
      if (int c = a.substr(a0, a1 - a0).compare(b.substr(b0, b1 - b0)); c != 0) return c < 0;
      // Equal numbers: fewer leading zeros first ("n1" < "n01"), then go on.
      if (a0 - i != b0 - j) return a0 - i < b0 - j;
      i = a1;
      j = b1;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace gd
