#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

#include "util/text_split.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using Views = std::vector<std::string_view>;

TEST_CASE("split_words splits on runs of spaces and tabs", "[util][text_split]") {
  CHECK(gd::split_words("nvidia_uvm 1830912 - - Live 0xffffffffc080c000 (O)") ==
        Views{"nvidia_uvm", "1830912", "-", "-", "Live", "0xffffffffc080c000", "(O)"});
  CHECK(gd::split_words("  options\tnvidia  NVreg_EnableGpuFirmware=0 ") == Views{"options", "nvidia", "NVreg_EnableGpuFirmware=0"});
  CHECK(gd::split_words("").empty());
  CHECK(gd::split_words(" \t ").empty());
}

TEST_CASE("split_nonempty drops empty pieces", "[util][text_split]") {
  CHECK(gd::split_nonempty("/usr//lib/x86_64-linux-gnu/", '/') == Views{"usr", "lib", "x86_64-linux-gnu"});
  CHECK(gd::split_nonempty("a", '/') == Views{"a"});
  CHECK(gd::split_nonempty("", '/').empty());
}

TEST_CASE("split_lines keeps empty lines and carriage returns, not the piece after the last newline", "[util][text_split]") {
  // /proc/devices: the blank line between the sections is a line of its own.
  CHECK(gd::split_lines("Character devices:\n195 nvidia\n\nBlock devices:\n  8 sd\n") ==
        Views{"Character devices:", "195 nvidia", "", "Block devices:", "  8 sd"});
  // A file without a final newline ends with its last line all the same.
  CHECK(gd::split_lines("NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"") == Views{"NAME=\"Ubuntu\"", "VERSION_ID=\"22.04\""});
  // A "\r" stays: the callers that care strip it themselves.
  CHECK(gd::split_lines("include /etc/ld.so.conf.d/*.conf\r\n") == Views{"include /etc/ld.so.conf.d/*.conf\r"});
  CHECK(gd::split_lines("\n\n") == Views{"", ""});
  CHECK(gd::split_lines("").empty());
}

TEST_CASE("split_nonempty_lines drops blank lines and carriage returns", "[util][text_split]") {
  CHECK(gd::split_nonempty_lines("0::/process_api/636c\r\n\n12:devices:/docker/x\n") ==
        Views{"0::/process_api/636c", "12:devices:/docker/x"});
  CHECK(gd::split_nonempty_lines("\n\n").empty());
}

TEST_CASE("split_fields keeps empty pieces, so positions count", "[util][text_split]") {
  // An /etc/passwd line with an empty GECOS field, and NVML's comma lists.
  CHECK(gd::split_fields("bob:x:1000:1000::/home/bob:/bin/bash", ':') ==
        std::vector<std::string_view>{"bob", "x", "1000", "1000", "", "/home/bob", "/bin/bash"});
  CHECK(gd::split_fields("4242,,?", ',') == std::vector<std::string_view>{"4242", "", "?"});
  CHECK(gd::split_fields("", ',') == std::vector<std::string_view>{""});
  CHECK(gd::split_fields("a:", ':') == std::vector<std::string_view>{"a", ""});
}

TEST_CASE("trim_whitespace drops blanks, tabs and line ends at both ends only", "[util][text_split]") {
  CHECK(gd::trim_whitespace("  580.159.04\n") == "580.159.04");          // a sysfs version file
  CHECK(gd::trim_whitespace("\tModel: \t NVIDIA H200\r") == "Model: \t NVIDIA H200");
  CHECK(gd::trim_whitespace(" \n\t\r ").empty());
  CHECK(gd::trim_whitespace("").empty());
}

TEST_CASE("all_digits: one or more ASCII digits, nothing else", "[util][text_split]") {
  CHECK(gd::all_digits("4242"));
  CHECK(gd::all_digits("0"));
  CHECK_FALSE(gd::all_digits(""));
  CHECK_FALSE(gd::all_digits("42a"));
  CHECK_FALSE(gd::all_digits(" 42"));
  CHECK_FALSE(gd::all_digits("-1"));
  CHECK_FALSE(gd::all_digits("\xd9\xa3"));  // a non-ASCII digit (Arabic-Indic three) is not one
}

}  // namespace GD_UNITY_ID
