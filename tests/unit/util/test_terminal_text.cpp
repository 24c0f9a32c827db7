#include "util/terminal_text.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::terminal_safe;
using namespace std::string_view_literals;

TEST_CASE("terminal text: what a report holds is kept as it is", "[util][terminal_text]") {
  // Lines of real reports: a libcuda path, the overview's "·" and "→", an NVRM version line with
  // its double spaces, a fix step whose command holds a backslash sequence for tr.
  for (std::string_view text : {
           "/usr/local/nvidia/lib64/libcuda.so.580.159.04"sv,
           "GPU 0: NVIDIA H200 \xC2\xB7 sm_90 \xC2\xB7 139.8 GiB \xC2\xB7 0000:00:06.0"sv,
           "libcuda.so.1 \xE2\x86\x92 /usr/local/nvidia/lib64/libcuda.so.1 (via LD_LIBRARY_PATH)"sv,
           "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  "sv,
           "echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -v /stubs | paste -sd:"sv,
           // Other scripts, a no-break space (U+00A0, just above C1), an emoji (4 bytes), U+10FFFF.
           "/home/\xD0\xB8\xD0\xB2\xD0\xB0\xD0\xBD/\xE5\xAD\xA6\xE4\xB9\xA0/.venv"sv,
           "a\xC2\xA0" "b \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"sv,
           "[\xE2\x9C\x93] ok"sv,
           ""sv,
       }) {
    CHECK(terminal_safe(text) == text);
  }
}

TEST_CASE("terminal text: control characters are shown escaped", "[util][terminal_text]") {
  // xterm's "set window title" (OSC 0 ... BEL) and "clear screen" (CSI 2 J), as a folder name.
  CHECK(terminal_safe("/opt/venv\x1b]0;pwned\x07\x1b[2J") == "/opt/venv\\x1b]0;pwned\\x07\\x1b[2J");
  // GCC's coloured diagnostics (-fdiagnostics-color): SGR and erase-in-line sequences.
  CHECK(terminal_safe("\x1b[01m\x1b[Kext.cu:3:1:\x1b[m\x1b[K \x1b[01;31m\x1b[Kerror: \x1b[m\x1b[K") ==
        "\\x1b[01m\\x1b[Kext.cu:3:1:\\x1b[m\\x1b[K \\x1b[01;31m\\x1b[Kerror: \\x1b[m\\x1b[K");
  // A newline that would start a report line of its own; CRLF from a file written on Windows.
  CHECK(terminal_safe("0\n[ok] Everything is fine") == "0\\n[ok] Everything is fine");
  CHECK(terminal_safe("NVIDIA_VISIBLE_DEVICES=all\r\n") == "NVIDIA_VISIBLE_DEVICES=all\\r\\n");
  CHECK(terminal_safe("CUDA_HOME=/usr/local/cuda\tx") == "CUDA_HOME=/usr/local/cuda\\tx");
  // NUL, the other C0 controls by their code, and DEL.
  CHECK(terminal_safe("a\0b"sv) == "a\\x00b");
  CHECK(terminal_safe("\x01\x08\x0b\x0c\x1f\x7f") == "\\x01\\x08\\x0b\\x0c\\x1f\\x7f");
}

TEST_CASE("terminal text: C1 controls, bidi controls and line separators are shown as U+", "[util][terminal_text]") {
  // U+009B is CSI in one character (C2 9B in UTF-8): "U+009B2J" clears no screen.
  CHECK(terminal_safe("GPU\xC2\x9B" "2J") == "GPUU+009B2J");
  CHECK(terminal_safe("\xC2\x80\xC2\x85\xC2\x9F") == "U+0080U+0085U+009F");
  // Trojan Source (CVE-2021-42574): a right-to-left override and isolates reorder what is shown.
  CHECK(terminal_safe("user\xE2\x80\xAE \xE2\x81\xA6// admin\xE2\x81\xA9 \xE2\x81\xA6") ==
        "userU+202E U+2066// adminU+2069 U+2066");
  CHECK(terminal_safe("\xE2\x80\xAA\xE2\x80\xAB\xE2\x80\xAC\xE2\x80\xAD") == "U+202AU+202BU+202CU+202D");
  CHECK(terminal_safe("\xE2\x81\xA7\xE2\x81\xA8") == "U+2067U+2068");
  CHECK(terminal_safe("\xE2\x80\x8E\xE2\x80\x8F\xD8\x9C") == "U+200EU+200FU+061C");
  CHECK(terminal_safe("a\xE2\x80\xA8" "b\xE2\x80\xA9") == "aU+2028bU+2029");
  // Their neighbours are ordinary characters: U+2027, U+202F, U+2065 (unassigned), U+206A.
  CHECK(terminal_safe("\xE2\x80\xA7\xE2\x80\xAF\xE2\x81\xA5\xE2\x81\xAA") == "\xE2\x80\xA7\xE2\x80\xAF\xE2\x81\xA5\xE2\x81\xAA");
}

TEST_CASE("terminal text: bytes that are not UTF-8 are shown as \\x", "[util][terminal_text]") {
  CHECK(terminal_safe("caf\xE9.so") == "caf\\xe9.so");                    // a Latin-1 file name
  CHECK(terminal_safe("\xC0\xAF") == "\\xc0\\xaf");                       // overlong "/"
  CHECK(terminal_safe("\xE0\x80\xAF") == "\\xe0\\x80\\xaf");              // overlong, 3 bytes
  CHECK(terminal_safe("\xED\xA0\x80") == "\\xed\\xa0\\x80");              // a UTF-16 surrogate
  CHECK(terminal_safe("\xF4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");     // above U+10FFFF
  CHECK(terminal_safe("\xF5\xFF") == "\\xf5\\xff");                       // never in UTF-8
  CHECK(terminal_safe("ok\xE2\x82") == "ok\\xe2\\x82");                   // cut at the end
  CHECK(terminal_safe("\xE2\x82x\xE2\x82\xAC") == "\\xe2\\x82x\xE2\x82\xAC");  // cut, then a whole "€"
  CHECK(terminal_safe("\x80\xBF") == "\\x80\\xbf");                       // continuation bytes alone
}

TEST_CASE("terminal text: escaping twice changes nothing more", "[util][terminal_text]") {
  std::string hostile = "/opt/venv\x1b]0;pwned\x07\xC2\x9B\xE2\x80\xAE\r\n[ok] Everything is fine\xFF";
  std::string once = terminal_safe(hostile);
  CHECK(once == "/opt/venv\\x1b]0;pwned\\x07U+009BU+202E\\r\\n[ok] Everything is fine\\xff");
  CHECK(terminal_safe(once) == once);
}

}  // namespace GD_UNITY_ID
