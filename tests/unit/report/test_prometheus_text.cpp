// The exposition format's escaping and layout (report/prometheus_text).

#include "report/prometheus_text.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

TEST_CASE("prometheus: label values escape backslash, quote and newline", "[report][prometheus]") {
  CHECK(gd::prom_escape_label_value(R"(a\b"c)" "\n" "d") == R"(a\\b\"c\nd)");
  CHECK(gd::prom_escape_label_value("GPU-5a1b · ok") == "GPU-5a1b · ok");  // UTF-8 stays
}

TEST_CASE("prometheus: label values that are not UTF-8 or hold control bytes get U+FFFD", "[report][prometheus]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(gd::prom_escape_label_value("a\xff" "b") == "a" + fffd + "b");
  CHECK(gd::prom_escape_label_value("\xc3") == fffd);                  // a lead byte cut off at the end
  CHECK(gd::prom_escape_label_value("\xc0\xaf") == fffd + fffd);        // overlong '/'
  CHECK(gd::prom_escape_label_value("\xed\xa0\x80") == fffd + fffd + fffd);  // a surrogate
  CHECK(gd::prom_escape_label_value(std::string("a\0b\tc\r", 6)) == "a" + fffd + "b" + fffd + "c" + fffd);
  CHECK(gd::prom_escape_label_value("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");  // a 4-byte sequence
}

TEST_CASE("prometheus: HELP escapes backslash and newline, not quotes", "[report][prometheus]") {
  CHECK(gd::prom_escape_help("a \"b\"\\\nc") == "a \"b\"\\\\\\nc");
}

TEST_CASE("prometheus: a family, samples with and without labels", "[report][prometheus]") {
  gd::PromWriter out;
  out.family("gpudoctor_x", "gauge", "What x is.");
  out.sample({}, gd::prom_int(3));
  out.family("gpudoctor_y", "gauge", "Y.");
  out.sample({{"a", "1"}, {"b", "q\""}}, std::string(gd::k_prom_nan));
  CHECK(out.text() ==
        "# HELP gpudoctor_x What x is.\n# TYPE gpudoctor_x gauge\ngpudoctor_x 3\n"
        "# HELP gpudoctor_y Y.\n# TYPE gpudoctor_y gauge\ngpudoctor_y{a=\"1\",b=\"q\\\"\"} NaN\n");
  CHECK(gd::prom_seconds(1764590000.1234) == "1764590000.123");
  CHECK(gd::prom_seconds(0.0421) == "0.042");
}

}  // namespace GD_UNITY_ID
