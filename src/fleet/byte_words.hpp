#pragma once
// Word-at-a-time byte search (SWAR: 8 bytes per step in a 64-bit integer), portable C++ for every
// target (x86_64, aarch64; no intrinsics): the JSON reader (fleet/json_lexer) and the report
// splitter (fleet/report_splitter) cross long runs of bytes they have no use for with it.
// Each test below sets the high bit of each byte that matches. A borrow may also set it in bytes
// above a true match, never below one, so the lowest set bit (the first byte in memory: words
// are read as little-endian numbers everywhere) is exact: first_match() is what to use.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gd::byte_words {

inline constexpr std::uint64_t k_ones = 0x0101010101010101ull;
inline constexpr std::uint64_t k_highs = 0x8080808080808080ull;

/// The 8 bytes at `p`, the first in the lowest byte.
inline std::uint64_t load(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  if constexpr (std::endian::native == std::endian::big) {
    std::uint64_t swapped = 0;
    for (int i = 0; i < 8; ++i) swapped |= ((word >> (8 * i)) & 0xff) << (8 * (7 - i));
    word = swapped;
  }
  return word;
}

inline std::uint64_t zero(std::uint64_t w) { return (w - k_ones) & ~w & k_highs; }
inline std::uint64_t equal(std::uint64_t w, unsigned char c) { return zero(w ^ (k_ones * c)); }
/// Bytes below `n` (n at most 0x80).
inline std::uint64_t below(std::uint64_t w, unsigned char n) { return (w - k_ones * n) & ~w & k_highs; }
/// Bytes of 0x80 and above.
inline std::uint64_t non_ascii(std::uint64_t w) { return w & k_highs; }

/// Which byte of the word the lowest flag is in (0-7); `flags` is not 0.
inline std::size_t first_match(std::uint64_t flags) { return static_cast<std::size_t>(std::countr_zero(flags)) / 8; }

}  // namespace gd::byte_words
