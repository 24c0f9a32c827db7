#include "util/text_codec.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::base64_decode;
using gd::base64_encode;
using gd::is_valid_utf8;
using gd::join_lines;
using gd::split_lines_exact;

namespace {

using Lines = std::vector<std::string>;
using namespace std::string_view_literals;

// The first two lines of /proc/driver/nvidia/version on a real H200 host (open module 580),
// with its double spaces and trailing blanks.
constexpr std::string_view k_nvrm_version_file =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
    "GCC version:  gcc version 15.3.0 (GCC) \n";

}  // namespace

TEST_CASE("utf-8: valid text of every sequence length", "[util][text_codec]") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8(k_nvrm_version_file));
  CHECK(is_valid_utf8("GPU 0: NVIDIA H200 \xC2\xB7 sm_90"));  // U+00B7, 2 bytes
  CHECK(is_valid_utf8("[\xE2\x9C\x93] ok"));                  // U+2713, 3 bytes
  CHECK(is_valid_utf8("\xF0\x9F\x98\x80"));                   // U+1F600, 4 bytes
  CHECK(is_valid_utf8("\xC2\x80"));                           // U+0080, smallest 2-byte value
  CHECK(is_valid_utf8("\xE0\xA0\x80"));                       // U+0800, smallest 3-byte value
  CHECK(is_valid_utf8("\xF0\x90\x80\x80"));                   // U+10000, smallest 4-byte value
  CHECK(is_valid_utf8("\xED\x9F\xBF"));                       // U+D7FF, just below the surrogates
  CHECK(is_valid_utf8("\xEE\x80\x80"));                       // U+E000, just above them
  CHECK(is_valid_utf8("\xF4\x8F\xBF\xBF"));                   // U+10FFFF, the last code point
  CHECK(is_valid_utf8("a\0b"sv));          // NUL is a valid character
}

TEST_CASE("utf-8: the length of the sequence at a place, 0 where it is ill-formed", "[util][text_codec]") {
  using gd::utf8_sequence_length;
  CHECK(utf8_sequence_length("a\xC2\xB7", 0) == 1);
  CHECK(utf8_sequence_length("a\xC2\xB7", 1) == 2);
  CHECK(utf8_sequence_length("[\xE2\x9C\x93]", 1) == 3);
  CHECK(utf8_sequence_length("\xF0\x9F\x98\x80!", 0) == 4);
  CHECK(utf8_sequence_length("a\xC2\xB7", 2) == 0);     // a continuation byte
  CHECK(utf8_sequence_length("\xE2\x9C", 0) == 0);      // cut by the end of the text
  CHECK(utf8_sequence_length("\xE0\x9F\xBF", 0) == 0);  // overlong
  CHECK(utf8_sequence_length("\xED\xA0\x80", 0) == 0);  // a surrogate
  CHECK(utf8_sequence_length("\xF4\x90\x80\x80", 0) == 0);  // past U+10FFFF
}

TEST_CASE("utf-8: overlong forms are refused", "[util][text_codec]") {
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));              // '/' in two bytes
  CHECK_FALSE(is_valid_utf8("\xC1\xBF"));              // U+007F in two bytes
  CHECK_FALSE(is_valid_utf8("\xC0\x80"));              // NUL in two bytes (modified UTF-8)
  CHECK_FALSE(is_valid_utf8("\xE0\x80\xAF"));          // '/' in three bytes
  CHECK_FALSE(is_valid_utf8("\xE0\x9F\xBF"));          // U+07FF in three bytes
  CHECK_FALSE(is_valid_utf8("\xF0\x80\x80\xAF"));      // '/' in four bytes
  CHECK_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));      // U+FFFF in four bytes
}

TEST_CASE("utf-8: surrogates and values past U+10FFFF are refused", "[util][text_codec]") {
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));          // U+D800
  CHECK_FALSE(is_valid_utf8("\xED\xBF\xBF"));          // U+DFFF
  CHECK_FALSE(is_valid_utf8("\xED\xA0\xBD\xED\xB8\x80"));  // a CESU-8 surrogate pair
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));      // U+110000
  CHECK_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));
  CHECK_FALSE(is_valid_utf8("\xF8\x88\x80\x80\x80"));  // old 5-byte form
  CHECK_FALSE(is_valid_utf8("\xFE"));
  CHECK_FALSE(is_valid_utf8("\xFF"));
}

TEST_CASE("utf-8: truncated and stray bytes are refused", "[util][text_codec]") {
  CHECK_FALSE(is_valid_utf8("\xC3"));                  // lead byte at the very end
  CHECK_FALSE(is_valid_utf8("ok \xE2\x9C"));           // 3-byte sequence cut after 2
  CHECK_FALSE(is_valid_utf8("\xF0\x9F\x98"));          // 4-byte sequence cut after 3
  CHECK_FALSE(is_valid_utf8("\xE2\x9Cx"));             // cut, then ASCII
  CHECK_FALSE(is_valid_utf8("\xC3(\xA9"));             // continuation byte replaced
  CHECK_FALSE(is_valid_utf8("\x80"));                  // continuation without a lead
  CHECK_FALSE(is_valid_utf8("caf\xE9"));               // Latin-1 "café"
  CHECK_FALSE(is_valid_utf8("\x7F" "ELF\x02\x01\x01\x00\x00\xFF"sv));  // start of a binary
}

TEST_CASE("lines: split is exact and join gives the text back", "[util][text_codec]") {
  CHECK(split_lines_exact("") == Lines{""});
  CHECK(split_lines_exact("a") == Lines{"a"});
  CHECK(split_lines_exact("a\n") == Lines{"a", ""});
  CHECK(split_lines_exact("\n") == Lines{"", ""});
  CHECK(split_lines_exact("\n\n") == Lines{"", "", ""});
  CHECK(split_lines_exact("a\n\nb") == Lines{"a", "", "b"});
  CHECK(split_lines_exact("dos\r\nline") == Lines{"dos\r", "line"});  // '\r' is content
  CHECK(split_lines_exact(k_nvrm_version_file) ==
        Lines{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  ",
              "GCC version:  gcc version 15.3.0 (GCC) ", ""});

  for (std::string_view text : {std::string_view(""), std::string_view("a"), std::string_view("a\n"),
                                std::string_view("\n"), std::string_view("\n\nx\n\n"), std::string_view("dos\r\n"),
                                k_nvrm_version_file, "a\0\nb"sv}) {
    CAPTURE(text);
    CHECK(join_lines(split_lines_exact(text)) == text);
  }
  CHECK(join_lines({}) == "");
  CHECK(join_lines({"a", "b"}) == "a\nb");
}

TEST_CASE("base64: RFC 4648 test vectors", "[util][text_codec]") {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
  };
  for (auto [plain, encoded] : vectors) {
    CAPTURE(plain);
    CHECK(base64_encode(plain) == encoded);
    CHECK(base64_decode(encoded) == std::string(plain));
  }
  // The alphabet's last two characters.
  CHECK(base64_encode("\xFB\xFF\xBF") == "+/+/");
  CHECK(base64_decode("+/+/") == std::string("\xFB\xFF\xBF"));
}

TEST_CASE("base64: every byte value round-trips", "[util][text_codec]") {
  std::string all;
  for (int i = 0; i < 256; ++i) {
    all += static_cast<char>(i);
  }
  for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{255},
                             std::size_t{256}}) {
    std::string bytes = all.substr(256 - length);
    CAPTURE(length);
    std::string encoded = base64_encode(bytes);
    CHECK(encoded.size() == (length + 2) / 3 * 4);
    CHECK(base64_decode(encoded) == bytes);
  }
}

TEST_CASE("base64: malformed input is refused", "[util][text_codec]") {
  for (std::string_view bad : {
           "Zg=",        // length not a multiple of 4
           "Zm9vY",      //
           "Zm9v!A==",   // not in the alphabet
           "Zm9\nZm8=",   // no line breaks
           "Zm9 ",       // no blanks
           "Z===",       // padding may only fill the last two places
           "====",       //
           "=Zg=",       //
           "Zm=v",       // data after padding
           "Zg==Zm9v",   // padding before the last group
           "Zm9v-_==",   // URL-safe alphabet is not accepted
       }) {
    CAPTURE(bad);
    CHECK_FALSE(base64_decode(bad).has_value());
  }
}

}  // namespace GD_UNITY_ID
