// The bounded JSON reader of replay and diff (issue 24 item 6): real documents parse exactly as
// json::parse makes them; a document past a bound is refused at that bound, with where.
#include "util/bounded_json.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "host_captures.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::JsonBounds;
using gd::parse_bounded_json;

namespace {

/// The reason a text is refused ("" when it parses).
std::string refusal(const std::string& text, const JsonBounds& bounds = {}) {
  auto parsed = parse_bounded_json(text, bounds);
  return parsed ? std::string() : parsed.error();
}

}  // namespace

TEST_CASE("bounded JSON: real captures parse to the same tree as json::parse", "[util][bounded_json]") {
  // The largest capture of tests/hosts (1.1 MB) and a small one, read in 64 KiB chunks.
  for (const char* name : {"h200-live-ml", "h200-container-580.159.04"}) {
    nlohmann::json expected = gd::test::host_capture_json(name);
    auto parsed = parse_bounded_json(expected.dump());
    REQUIRE(parsed);
    CHECK(*parsed == expected);
  }
  auto small = parse_bounded_json(std::string(R"( {"a": [1, -2, 3.5, true, false, null, "x\"y"], "b": {}} )"));
  REQUIRE(small);
  CHECK(*small == nlohmann::json::parse(R"({"a": [1, -2, 3.5, true, false, null, "x\"y"], "b": {}})"));
}

TEST_CASE("bounded JSON: each bound refuses the document past it, and not at it", "[util][bounded_json]") {
  JsonBounds b;
  b.max_depth = 4;
  CHECK(refusal("[[[[1]]]]", b).empty());
  CHECK(refusal("[[[[[1]]]]]", b) == "nested more than 4 levels deep at byte 5: not read");
  b = {};
  b.max_items = 5;  // the array, its 3 values; the object, its key and its value are 3 more
  CHECK(refusal("[1,2,3,4]", b).empty());
  CHECK(refusal("[1,2,3,4,5]", b).starts_with("more than 5 values at byte "));
  CHECK(refusal(R"({"a":1,"b":2,"c":3})", b).starts_with("more than 5 values at byte "));
  b = {};
  b.max_string_bytes = 6;  // keys count too
  CHECK(refusal(R"({"ab":"cd","e":"f"})", b).empty());
  CHECK(refusal(R"({"ab":"cd","ef":"g"})", b).starts_with("its strings take more than 6 bytes at byte "));
  b = {};
  b.max_one_string = 8;
  CHECK(refusal(R"(["12345678"])", b).empty());
  CHECK(refusal(R"(["123456789"])", b) == "a string longer than 8 bytes at byte 10: not read");
  CHECK(refusal(R"(["a\"\"\"\"\"\""])", b) == "a string longer than 8 bytes at byte 10: not read");  // escapes count as written
  b = {};
  b.max_one_literal = 4;
  CHECK(refusal("[1234]", b).empty());
  CHECK(refusal("[12345]", b) == "a number or literal longer than 4 bytes at byte 5: not read");
  CHECK(refusal("12345", b) == "a number or literal longer than 4 bytes at byte 4: not read");  // a whole document cut short
  b = {};
  b.max_bytes = 10;
  CHECK(refusal(std::string(10, ' ') + "1", b).starts_with("larger than 10 bytes"));
}

TEST_CASE("bounded JSON: hostile shapes stop early", "[util][bounded_json]") {
  // 20 MB of '[': refused at the 65th, never read on.
  std::string nested(20u << 20, '[');
  CHECK(refusal(nested) == "nested more than 64 levels deep at byte 65: not read");
  // Two million small objects: refused at the millionth value.
  std::string wide = "[";
  for (int i = 0; i < 2'000'000; ++i) wide += "{\"a\":0},";
  wide += "0]";
  CHECK(refusal(wide).starts_with("more than 1000000 values at byte "));
}

TEST_CASE("bounded JSON: invalid JSON names the byte and the last token, escaped and cut short", "[util][bounded_json]") {
  // nlohmann's token text runs from the start of the last number, string or literal it began.
  CHECK(refusal(R"([1, tru])") == "not valid JSON at byte 8 (last read: '1, tru]')");
  CHECK(refusal("") == "not valid JSON at byte 1 (last read: '')");
  // A control byte inside a string: nlohmann shows it as <U+001B>; the terminal sees no ESC.
  std::string esc = refusal("[\"\x1b[2J\"]");
  CHECK(esc.find('\x1b') == std::string::npos);
  CHECK(esc.starts_with("not valid JSON at byte 3 (last read: '\"<U+001B>')"));
  // Invalid UTF-8 and a long token: shown escaped, at most 40 bytes of it.
  std::string bad = refusal("[\"" + std::string(100, 'x') + "\xff\"]");
  CHECK(bad.find('\xff') == std::string::npos);
  CHECK(bad.find("(last read: '\"" + std::string(39, 'x') + "...')") != std::string::npos);
  // A bidi override in a bare word: escaped by the terminal sanitizer.
  std::string bidi = refusal("[x\xe2\x80\xae]");
  CHECK(bidi.find("\xe2\x80\xae") == std::string::npos);
  // A token in the string the parse stopped in never reaches stderr, whole or cut.
  const std::string token = "hf_" + std::string(34, 'Q');
  std::string secret = refusal("[\"" + token + "\x01\"]");
  CHECK(secret.find("QQQQQQQQ") == std::string::npos);
  CHECK(secret.find("<secret>") != std::string::npos);
}

TEST_CASE("bounded JSON: a read error ends the parse with its reason", "[util][bounded_json]") {
  int calls = 0;
  gd::JsonChunkReader read = [&](std::span<char> buffer) -> std::expected<std::size_t, std::string> {
    if (calls++ > 0) return std::unexpected(std::string("Input/output error"));
    buffer[0] = '[';
    return 1;
  };
  auto parsed = parse_bounded_json(read);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error() == "read failed: Input/output error");
}

}  // namespace GD_UNITY_ID
