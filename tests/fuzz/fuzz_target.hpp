#pragma once
// One libFuzzer entry point per parser (tests/fuzz/README.md). GD_FUZZ_TEXT(body) defines it with
// `text`, the input as a string_view; the body must only ever return, whatever the bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#define GD_FUZZ_TEXT(body)                                                               \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {    \
    std::string_view text(reinterpret_cast<const char*>(data), size);                   \
    body;                                                                                \
    return 0;                                                                            \
  }

namespace gd::fuzz {

/// Lines of the input, for parsers that take one line at a time.
inline void each_line(std::string_view text, auto&& f) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    f(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

}  // namespace gd::fuzz
