#include "util/text_codec.hpp"

#include <cstdint>

namespace gd {

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) -> int {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : -1;
  };
  auto in = [](int c, int lo, int hi) { return c >= lo && c <= hi; };
  const int b0 = byte(0);
  if (in(b0, 0x00, 0x7f)) return 1;
  if (in(b0, 0xc2, 0xdf)) return in(byte(1), 0x80, 0xbf) ? 2 : 0;
  if (in(b0, 0xe0, 0xef)) {
    const int lo = b0 == 0xe0 ? 0xa0 : 0x80;  // E0 80..9F would be overlong
    const int hi = b0 == 0xed ? 0x9f : 0xbf;  // ED A0..BF would be a surrogate
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xbf) ? 3 : 0;
  }
  if (in(b0, 0xf0, 0xf4)) {
    const int lo = b0 == 0xf0 ? 0x90 : 0x80;  // F0 80..8F would be overlong
    const int hi = b0 == 0xf4 ? 0x8f : 0xbf;  // past U+10FFFF otherwise
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xbf) && in(byte(3), 0x80, 0xbf) ? 4 : 0;
  }
  return 0;  // a continuation byte, C0, C1, F5..FF, or the end of the text
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::vector<std::string> split_lines_exact(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      return lines;
    }
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) {
      out += '\n';
    }
    out += lines[i];
  }
  return out;
}

namespace {
constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  while (i + 2 < bytes.size()) {
    std::uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                      static_cast<unsigned char>(bytes[i + 2]);
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    out += k_alphabet[(v >> 6) & 63];
    out += k_alphabet[v & 63];
    i += 3;
  }
  std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    std::uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    out += k_alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else {
        if (pad) return std::nullopt;
        v[k] = decode_char(c);
        if (v[k] < 0) return std::nullopt;
      }
    }
    std::uint32_t triple = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>((triple >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((triple >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(triple & 0xFF);
  }
  return out;
}

}  // namespace gd
