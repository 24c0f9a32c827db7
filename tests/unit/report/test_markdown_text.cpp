// Markdown pieces that must hold any host text (src/report/markdown_text.cpp).

#include <catch2/catch.hpp>

#include "report/markdown_text.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace md = gd::md;

TEST_CASE("markdown text: what Markdown, GitHub or HTML would read as syntax is escaped", "[report][markdown]") {
  CHECK(md::inline_text("a|b") == "a&#124;b");  // a table cell's end
  CHECK(md::inline_text("<script>x</script>") == "&lt;script&gt;x&lt;/script&gt;");
  CHECK(md::inline_text("&amp;") == "&amp;amp;");
  CHECK(md::inline_text("`rm -rf`") == "\\`rm -rf\\`");
  CHECK(md::inline_text("*a* _b_ [c](d) \\") == "\\*a\\* \\_b\\_ \\[c\\](d) \\\\");
  CHECK(md::inline_text("~~gone~~ $x$") == "&#126;&#126;gone&#126;&#126; &#36;x&#36;");
  // A line of its own could start a heading or a list: the text stays on one source line.
  CHECK(md::inline_text("one\n# two\n- three") == "one<br># two<br>- three");
  CHECK(md::html_text("a<b>&c\nd") == "a&lt;b&gt;&amp;c d");
}

TEST_CASE("markdown text: code spans and blocks outfence the backticks inside", "[report][markdown]") {
  CHECK(md::code_span("cuda.init") == "`cuda.init`");
  CHECK(md::code_span("a `b` c") == "``a `b` c``");
  CHECK(md::code_span("`edge`") == "`` `edge` ``");
  CHECK(md::code_span("") == "`  `");
  CHECK(md::code_span("two\nlines") == "`two\\nlines`");
  CHECK(md::code_block("x = 1") == "```\nx = 1\n```\n");
  CHECK(md::code_block("```\n</details>\n````x") == "`````\n```\n</details>\n````x\n`````\n");
}

TEST_CASE("markdown text: references are autolinks only when they are plain URLs", "[report][markdown]") {
  CHECK(md::link_or_code("https://docs.nvidia.com/deploy/xid-errors/index.html") ==
        "<https://docs.nvidia.com/deploy/xid-errors/index.html>");
  CHECK(md::link_or_code("https://x/a b") == "`https://x/a b`");
  CHECK(md::link_or_code("https://x/<a>") == "`https://x/<a>`");
  CHECK(md::link_or_code("src/nvidia/arch/nvalloc/unix/src/osinit.c") == "`src/nvidia/arch/nvalloc/unix/src/osinit.c`");
}

TEST_CASE("markdown text: clean makes valid UTF-8 and plain line ends", "[report][markdown]") {
  CHECK(md::clean("ok é ✓ 🙂") == "ok é ✓ 🙂");
  CHECK(md::clean("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(md::clean("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");      // overlong '/'
  CHECK(md::clean("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(md::clean("\xE2\x9C") == "\xEF\xBF\xBD\xEF\xBF\xBD");      // cut short
  CHECK(md::clean(std::string("a\0b\x1b[31m", 8)) == "ab[31m");
  CHECK(md::clean("a\r\nb\rc\td") == "a\nb\nc\td");
}

TEST_CASE("markdown text: shorten cuts on a UTF-8 boundary", "[report][markdown]") {
  CHECK(md::shorten("abc", 3) == "abc");
  CHECK(md::shorten("abcd", 3) == "abc…");
  CHECK(md::shorten("aé", 2) == "a…");  // "é" is two bytes: not split
}

}  // namespace GD_UNITY_ID
