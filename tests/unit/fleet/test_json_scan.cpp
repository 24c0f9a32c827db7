// The fleet's JSON reader (fleet/json_scan, fleet/json_lexer) accepts exactly what nlohmann's strict
// parser accepts (nlohmann::json::accept is the oracle: adversarial cases one by one, then real
// reports mutated at random), hands the handler the values nlohmann reads, and says what is wrong
// with a line and column, in nlohmann's words, without quoting the text.
#include "fleet/json_scan.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "fleet/report_digest.hpp"
#include "replayed_reports.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using nlohmann::json;

namespace {

// Rebuilds the document from the reader's events (nlohmann's tree), to compare values.
struct TreeHandler {
  std::vector<json> stack;
  std::vector<std::string> keys;
  json root;
  std::vector<const char*> views;  // where each string's view pointed

  void put(json value) {
    if (stack.empty()) {
      root = std::move(value);
    } else if (stack.back().is_array()) {
      stack.back().push_back(std::move(value));
    } else {
      stack.back()[keys.back()] = std::move(value);
    }
  }
  bool open(bool array) {
    stack.push_back(array ? json::array() : json::object());
    keys.emplace_back();
    return true;
  }
  void close() {
    json done = std::move(stack.back());
    stack.pop_back();
    keys.pop_back();
    put(std::move(done));
  }
  void key(std::string_view name) { keys.back() = std::string(name); }
  void string(std::string_view value) {
    views.push_back(value.data());
    put(std::string(value));
  }
  void number(std::string_view text, bool) { put(json::parse(text)); }
  void boolean(bool value) { put(value); }
  void null() { put(nullptr); }
};

gd::JsonScanEnd scan(std::string_view text, gd::JsonScanError* error = nullptr) {
  TreeHandler handler;
  gd::JsonScanError ignored;
  return gd::scan_json(text, handler, error ? *error : ignored);
}

bool accepts(std::string_view text) { return scan(text) == gd::JsonScanEnd::complete; }

std::string message_for(std::string_view text) {
  gd::JsonScanError error;
  REQUIRE(scan(text, &error) == gd::JsonScanEnd::invalid);
  return gd::json_error_text(text, error);
}

// Texts at every edge of the grammar, UTF-8 and escapes: the reader's verdict must be nlohmann's.
const std::vector<std::string> k_edge_cases = {
    // documents and whitespace
    "{}", "[]", " \t\r\n{ } \n", "{\"a\":1}", "[1,2,3]", "{\"a\":{\"b\":[{}]}}", "", " ", "{", "}", "[", "]",
    "[1,]", "[,1]", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":}", "{1:2}", "{\"a\":1 \"b\":2}", "[1 2]",
    "{}{}", "{} x", "{}\n{}", "[]]", "{\"a\":1}}", "\"a\" \"b\"",
    // byte order marks
    "\xef\xbb\xbf{}", "\xef\xbb\xbf", "\xef\xbb{}", "\xef{}", " \xef\xbb\xbf{}", "{}\xef\xbb\xbf",
    // literals
    "true", "false", "null", "tru", "nul", "nulll", "True", "NULL", "[true,false,null]", "[truefalse]", "t",
    // numbers
    "0", "-0", "1", "-1", "10", "01", "-01", "00", "1.5", "1.", ".5", "-", "-a", "+1", "1e5", "1E5", "1e+5",
    "1e-5", "1e", "1e+", "1e-", "1.e5", "1.5e", "0x10", "1_000", "Infinity", "NaN", "-Infinity",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "123456789012345678901234567890", "1e308", "1.7e308",
    "1.8e308", "1e309", "1e400", "-1e400", "1e-400", "0.0000000001e318", "0e999999999", "[1e400]",
    "1" + std::string(308, '0'), "2" + std::string(308, '0'), "1" + std::string(400, '0'),
    "0." + std::string(400, '0') + "1e400",
    // strings and escapes
    "\"\"", "\"abc\"", "\"abc", "\"", "\"\\\"\"", "\"\\\\\"", "\"\\/\"", "\"\\b\\f\\n\\r\\t\"", "\"\\x\"",
    "\"\\'\"", "\"\\a\"", "\"\\u0041\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"\\u0000\"", "\"\\u12\"", "\"\\u12g4\"",
    "\"\\u\"", "\"\\", "\"\\\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\ud800x\"", "\"\\ud800\\u0041\"",
    "\"\\ud800\\ud800\"", "\"\\udc00\"", "\"\\udfff\\ud800\"", "\"\\ud800\\u12\"", "\"\\uDBFF\\uDFFF\"",
    "{\"\\u0061\":1}", "{\"a\\\"b\":\"c\\\"d\"}",
    // control bytes in strings
    std::string("\"a\x01\""), std::string("\"a\x1f\""), "\"a\nb\"", "\"a\tb\"", "\"a\rb\"", "\"a\x7f\"",
    std::string("\"a\0b\"", 5), std::string("[\"\x1b[31m\"]"),
    // UTF-8
    "\"\xc3\xa9\"", "\"\xe2\x82\xac\"", "\"\xf0\x9f\x98\x80\"", "\"\xc0\x80\"", "\"\xc1\xbf\"", "\"\xc2\"",
    "\"\xe0\x80\x80\"", "\"\xe0\xa0\x80\"", "\"\xed\x9f\xbf\"", "\"\xed\xa0\x80\"", "\"\xee\x80\x80\"",
    "\"\xef\xbf\xbf\"", "\"\xf0\x8f\xbf\xbf\"", "\"\xf0\x90\x80\x80\"", "\"\xf4\x8f\xbf\xbf\"", "\"\xf4\x90\x80\x80\"",
    "\"\xf5\x80\x80\x80\"", "\"\xff\"", "\"\x80\"", "\"\xbf\"", "\"\xe2\x82\"", "\"\xe2\"", "\"\xf0\x9f\x98\"",
    "\"\xe2\x82\xac\xe2\x82\xac plain after\"", "{\"\xff\":1}", "\xc3\xa9", "[\xc3\xa9]",
    // long strings (the word-at-a-time scan and its tail)
    "\"" + std::string(1000, 'a') + "\"", "\"" + std::string(1001, 'a') + "\\n\"",
    "\"" + std::string(999, 'a') + "\x01\"", "\"" + std::string(17, 'a') + "\xc3\xa9" + std::string(13, 'b') + "\"",
    "\"" + std::string(7, 'a'), "\"" + std::string(8, 'a'), "\"" + std::string(9, 'a') + "\\",
    // nesting
    std::string(1000, '[') + std::string(1000, ']'), std::string(1000, '[') + std::string(999, ']'),
    std::string(500, '[') + "{\"a\":" + std::string(500, '[') + std::string(500, ']') + "}" + std::string(500, ']'),
    // what is no token at all
    "#", "@", "{'a':1}", "// c\n{}", "/* c */ {}", "{\"a\":1}//", "[1,\x01]",
};

}  // namespace

TEST_CASE("json_scan: every edge case gets nlohmann's verdict", "[fleet][json_scan]") {
  for (const std::string& text : k_edge_cases) {
    INFO("case: " << json(text).dump(-1, ' ', true, json::error_handler_t::replace));
    CHECK(accepts(text) == json::accept(text));
  }
}

TEST_CASE("json_scan: a NUL byte after the document is refused (nlohmann stops reading there)", "[fleet][json_scan]") {
  // nlohmann reads a NUL outside a string as the end of the text (for C strings); a report is no
  // C string: what follows the document is checked like any other byte.
  std::string text("{}\0junk", 7);
  CHECK(json::accept(text));  // the one known difference
  CHECK_FALSE(accepts(text));
  CHECK_FALSE(accepts(std::string("{}\0", 3)));
  CHECK(message_for(std::string("{}\0", 3)) ==
        "parse error at line 1, column 3: syntax error while parsing value - invalid literal");
  CHECK_FALSE(accepts(std::string("\0", 1)));
}

TEST_CASE("json_scan: values reach the handler as nlohmann reads them", "[fleet][json_scan]") {
  std::string text =
      R"({"plain": "abc", "esc": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\u0000z", "n": [0, -0, 12, -7, 1.5, 2e10,)"
      R"( 18446744073709551615, 123456789012345678901234567890], "t": true, "f": false, "z": null,)"
      " \"utf8\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", \"\\u006bey\": {}}";
  TreeHandler handler;
  gd::JsonScanError error;
  REQUIRE(gd::scan_json(text, handler, error) == gd::JsonScanEnd::complete);
  CHECK(handler.root == json::parse(text));
  CHECK(handler.root["esc"].get<std::string>() == std::string("a\"b\\c/d\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\0z", 20));
  // A string without escapes is a view into the text itself: nothing was copied.
  REQUIRE_FALSE(handler.views.empty());
  CHECK(handler.views[0] == text.data() + text.find("abc"));
}

TEST_CASE("json_scan: the handler's open() stops the reading", "[fleet][json_scan]") {
  struct Shallow : TreeHandler {
    bool open(bool array) { return stack.size() < 3 && TreeHandler::open(array); }
  };
  gd::JsonScanError error;
  Shallow deep;
  CHECK(gd::scan_json("[[[[1]]]]", deep, error) == gd::JsonScanEnd::stopped);
  Shallow shallow;
  CHECK(gd::scan_json("[[[1]]]", shallow, error) == gd::JsonScanEnd::complete);
}

TEST_CASE("json_scan: an object that opens at the start of a line is told (the splitter cuts there)",
          "[fleet][json_scan]") {
  auto brace = [](std::string_view text) {
    TreeHandler handler;
    gd::JsonScanError error;
    bool at_line_start = false;
    CHECK(gd::scan_json(text, handler, error, &at_line_start) == gd::JsonScanEnd::complete);
    return at_line_start;
  };
  CHECK(brace("{\"a\": [\n{}]}"));
  CHECK(brace("{\"a\":\r\n{\"b\": 1}}"));
  CHECK_FALSE(brace("{\"a\": [\n {}]}"));    // indented: no report's line starts with '{' inside it
  CHECK_FALSE(brace("{\"a\": [\n[1]]}"));    // '[' at a line's start is no cut
  CHECK_FALSE(brace("{\"a\": \"x\\n{\"}"));  // "\n{" escaped inside a string
  CHECK_FALSE(brace("{}"));                   // the document's own first brace
}

TEST_CASE("json_scan: the digest's whole_document is false where the splitter would cut the text", "[fleet][digest]") {
  std::string report = gd::test::replayed_report_json("h200-live-ml", "gpu1", "");
  bool whole = false;
  REQUIRE(gd::digest_report(report, nullptr, whole).has_value());
  CHECK(whole);
  std::size_t areas = report.find("\"areas\": [");
  REQUIRE(areas != std::string::npos);
  std::size_t brace = report.find('{', areas);
  std::size_t line_start = report.rfind('\n', brace) + 1;
  report.erase(line_start, brace - line_start);  // the object now opens at its line's start
  REQUIRE(gd::digest_report(report, nullptr, whole).has_value());  // still a valid report...
  CHECK_FALSE(whole);                                               // ...but not one piece to the splitter
  CHECK_FALSE(gd::digest_report("{\"schema_version\": 1", nullptr, whole).has_value());
  CHECK_FALSE(whole);
}

TEST_CASE("json_scan: errors name the line and column in nlohmann's words, never the text", "[fleet][json_scan]") {
  CHECK(message_for(R"({"key": AKIAIOSFODNN7EXAMPLE})") ==
        "parse error at line 1, column 9: syntax error while parsing value - invalid literal");
  CHECK(message_for("{\n  \"a\": 1,\n  \"b\": tru\n}") ==
        "parse error at line 3, column 11: syntax error while parsing value - invalid literal");
  CHECK(message_for("{\"url\": \"https://u:ghp_secret@example.com\n\"}") ==
        "parse error at line 1, column 42: syntax error while parsing value - invalid string: control character "
        "U+000A (LF) must be escaped to \\u000A or \\n");
  CHECK(message_for("{\"schema_version\": 1, \"findings\": [") ==
        "parse error at line 1, column 36: syntax error while parsing value - unexpected end of input; expected "
        "'[', '{', or a literal");
  CHECK(message_for("[1 2]") == "parse error at line 1, column 4: syntax error while parsing array - unexpected "
                                "number literal; expected ']'");
  CHECK(message_for("{\"a\" 1}") == "parse error at line 1, column 6: syntax error while parsing object separator - "
                                    "unexpected number literal; expected ':'");
  CHECK(message_for("{\"a\":1,}") == "parse error at line 1, column 8: syntax error while parsing object key - "
                                     "unexpected '}'; expected string literal");
  CHECK(message_for("{} {}") == "parse error at line 1, column 4: syntax error while parsing value - unexpected "
                                "'{'; expected end of input");
  CHECK(message_for("{\"s\": \"\\ud800secret\"}").ends_with(
      "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF"));
  CHECK(message_for("\"\\udc00\"").ends_with("invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF"));
  CHECK(message_for("\"\xc0\x80\"").ends_with("invalid string: ill-formed UTF-8 byte"));
  CHECK(message_for("[\"\x1b[31m\"]").ends_with("control character U+001B (ESC) must be escaped to \\u001B"));
  CHECK(message_for("\"\\q\"").ends_with("invalid string: forbidden character after backslash"));
  CHECK(message_for("\"\\u12\"").ends_with("invalid string: '\\u' must be followed by 4 hex digits"));
  CHECK(message_for("\"abc").ends_with("invalid string: missing closing quote"));
  CHECK(message_for("1e400") == "parse error at line 1, column 1: number overflow: it is too large for a double");
  CHECK(message_for("-") .ends_with("invalid number; expected digit after '-'"));
  CHECK(message_for("\xef\xbb{}").ends_with("invalid BOM; must be 0xEF 0xBB 0xBF if given"));
  // Whatever is wrong, the bytes around it are not in the message (they may be a token).
  for (std::string bad : {"{\"k\": ghp_tokenvalue}", "{\"k\": \"ghp_tokenvalue\x01\"}", "[\"ghp_tokenvalue\" ghp_x]",
                          "{\"ghp_tokenvalue\" 1}", "{\"k\": -ghp_tokenvalue}"}) {
    CHECK(message_for(bad).find("ghp_") == std::string::npos);
  }
}

TEST_CASE("json_scan: mutated real reports get nlohmann's verdict, and the digest says not valid JSON exactly then",
          "[fleet][json_scan]") {
  // Real reports (pretty and compact), each mutated at random places: a byte deleted, replaced or
  // inserted (from the bytes that matter to JSON and UTF-8), or the text cut short.
  std::vector<std::string> reports;
  for (const char* host : {"lxc-stale-uvm-major", "fake-crash", "h200-live-ml"}) {
    std::string pretty = gd::test::replayed_report_json(host, "node-1", "2026-12-01T10:22:33Z");
    reports.push_back(pretty);
    reports.push_back(json::parse(pretty).dump());
  }
  const std::string bytes = std::string("\"\\{}[],:0-e.+u tfn\x01\x1f\x7f\xff\xc3\xa9\xe2\x82\xed\xa0\xf0\x9f\n") + "A";
  std::mt19937 random(20261206);
  int mutations = 0;
  int rejected = 0;
  for (const std::string& report : reports) {
    REQUIRE(accepts(report));
    REQUIRE(gd::digest_report(report));
    for (int round = 0; round < 120; ++round) {
      std::string text = report;
      const int edits = 1 + static_cast<int>(random() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        std::size_t at = random() % text.size();
        char b = bytes[random() % bytes.size()];
        switch (random() % 4) {
          case 0: text.erase(at, 1); break;
          case 1: text[at] = b; break;
          case 2: text.insert(at, 1, b); break;
          default: text.resize(at); break;
        }
      }
      const bool oracle = json::accept(text);
      INFO("mutation " << round << " of a report of " << report.size() << " bytes");
      REQUIRE(accepts(text) == oracle);
      auto digest = gd::digest_report(text);
      const bool called_invalid = !digest && digest.error().starts_with("not valid JSON");
      CHECK(called_invalid == !oracle);
      ++mutations;
      rejected += oracle ? 0 : 1;
    }
  }
  CHECK(rejected > mutations / 4);      // the mutations reach the error paths...
  CHECK(rejected < mutations * 19 / 20);  // ...and the paths that accept
}

TEST_CASE("json_scan: the digest's facts are the report's, read by nlohmann", "[fleet][json_scan][digest]") {
  gd::FleetFactSelection selection = gd::FleetFactSelection::curated();
  for (const char* host : {"h200-live-ml", "fake-eight-p2p", "lxc-stale-uvm-major"}) {
    std::string text = gd::test::replayed_report_json(host, "node-1");
    auto digest = gd::digest_report(text, &selection);
    REQUIRE(digest);
    json report = json::parse(text);
    std::vector<gd::DigestFact> expected;
    for (const auto& [name, fact] : report["facts"].items()) {
      if (!selection.selects(name)) continue;
      gd::DigestFact f{name, fact.value("state", ""), false, "", {}};
      auto text_of = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
      if (fact.contains("value")) {
        if (fact["value"].is_array()) {
          f.is_list = true;
          for (const json& item : fact["value"]) f.items.push_back(text_of(item));
        } else {
          f.value = text_of(fact["value"]);
        }
      }
      expected.push_back(f);
    }
    INFO(host);
    REQUIRE(digest->facts.size() == expected.size());
    CHECK_FALSE(expected.empty());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CHECK(digest->facts[i].name == expected[i].name);
      CHECK(digest->facts[i].state == expected[i].state);
      CHECK(digest->facts[i].is_list == expected[i].is_list);
      CHECK(digest->facts[i].value == expected[i].value);
      CHECK(digest->facts[i].items == expected[i].items);
    }
  }
}

}  // namespace GD_UNITY_ID
