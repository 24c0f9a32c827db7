#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

#include "util/text_split.hpp"

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

TEST_CASE("split_nonempty_lines drops blank lines and carriage returns", "[util][text_split]") {
  CHECK(gd::split_nonempty_lines("0::/process_api/636c\r\n\n12:devices:/docker/x\n") ==
        Views{"0::/process_api/636c", "12:devices:/docker/x"});
  CHECK(gd::split_nonempty_lines("\n\n").empty());
}
