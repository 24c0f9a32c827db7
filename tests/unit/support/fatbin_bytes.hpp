#pragma once
// Fat binary bytes laid out as CUDA's fatbinary writes them (src/probes/shared/cuda_fatbin.hpp
// describes the layout), for the fat-binary scanner's and the GPU-code coverage tests: a
// container header, then per entry its 64-byte header, optional header tail and payload.

#include <cstdint>
#include <string>
#include <vector>

#include "probes/shared/cuda_fatbin.hpp"

namespace gd::test {

// Entry flags as CUDA 13's fatbinary writes them: 64-bit (0x1) and Linux (0x10) on every entry.
inline constexpr std::uint64_t k_host_flags = 0x11;

inline std::string le(std::uint64_t value, std::size_t width) {
  std::string out(width, '\0');
  for (std::size_t i = 0; i < width; ++i) {
    out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
  return out;
}

struct Entry {
  std::uint16_t kind = gd::k_fatbin_kind_elf;
  std::uint32_t arch = 80;
  std::uint64_t flags = k_host_flags;
  std::size_t payload = 64;     // bytes of payload (filled with a pattern)
  std::string header_tail;      // bytes after the 64-byte header (option text, feature data)
};

/// One entry as fatbinary lays it out: the 64-byte header, its tail, the payload.
inline std::string entry_bytes(const Entry& e) {
  std::string header;
  header += le(e.kind, 2);
  header += le(0x0101, 2);
  header += le(64 + e.header_tail.size(), 4);
  header += le(e.payload, 8);
  header += le(0, 4);     // compressed size
  header += le(0x40, 4);
  header += le(8, 2);     // minor
  header += le(1, 2);     // major
  header += le(e.arch, 4);
  header += le(0, 8);     // name offset and length
  header += le(e.flags, 8);
  header += le(0, 8);
  header += le(0, 8);     // uncompressed size
  return header + e.header_tail + std::string(e.payload, '\xab');
}

inline std::string container_bytes(const std::vector<Entry>& entries) {
  std::string body;
  for (const Entry& e : entries) {
    body += entry_bytes(e);
  }
  return le(gd::k_fatbin_magic, 4) + le(1, 2) + le(16, 2) + le(body.size(), 8) + body;
}

}  // namespace gd::test
