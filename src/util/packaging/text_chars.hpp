#pragma once
// The character classes and bounds that the PEP 440 and PEP 508 readers share (ASCII only: the
// grammars allow nothing else). Internal to packaging/.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace gd::packaging_text {

// Real values are short ("2.11.0.dev20260109+cu130", a Requires-Dist line with a long URL is a
// few hundred bytes); anything far longer is not metadata and is refused rather than scanned.
inline constexpr std::size_t k_max_version_chars = 256;
inline constexpr std::size_t k_max_requirement_chars = 8192;
// Real markers nest parentheses two deep; the limit keeps recursion bounded on garbage.
inline constexpr int k_max_marker_depth = 64;

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_lower_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
inline bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
inline bool is_word(char c) { return is_alnum(c) || c == '_'; }
inline bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }
inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

inline std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

}  // namespace gd::packaging_text
