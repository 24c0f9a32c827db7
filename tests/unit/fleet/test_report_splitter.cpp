// The splitter cuts streams into reports the way `gpudoctor fleet` meets them: JSON Lines,
// indented reports one after another, fed in chunks of any size, with broken and foreign data
// between them found and named by line, and the next report found again.
#include "fleet/report_splitter.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

struct Piece {
  bool document;
  std::int64_t line;
  std::string text;  ///< the document, or the problem's reason
};

std::vector<Piece> split(std::string_view stream, std::size_t chunk, std::size_t max_bytes = 1 << 20) {
  gd::ReportSplitter splitter(max_bytes);
  std::vector<Piece> out;
  auto sink = [&](const gd::StreamPiece& p) {
    bool doc = p.kind == gd::StreamPiece::Kind::document;
    out.push_back({doc, p.line, doc ? std::string(p.text) : p.reason});
  };
  for (std::size_t i = 0; i < stream.size(); i += chunk) splitter.feed(stream.substr(i, chunk), sink);
  splitter.finish(sink);
  return out;
}

const std::string k_pretty = "{\n  \"a\": {\n    \"b\": \"x}{\\\"\"\n  },\n  \"c\": [\n    {}\n  ]\n}";

}  // namespace

TEST_CASE("splitter: JSON Lines and indented reports, in chunks of every size", "[fleet][splitter]") {
  const std::string stream = "{\"n\":1}\n{\"n\":2}\r\n\n" + k_pretty + "\n" + k_pretty + "{\"n\":3}\n";
  for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{4096}}) {
    std::vector<Piece> pieces = split(stream, chunk);
    REQUIRE(pieces.size() == 5);
    CHECK(pieces[0].document);
    CHECK(pieces[0].text == "{\"n\":1}");
    CHECK(pieces[1].text == "{\"n\":2}");
    CHECK(pieces[1].line == 2);
    CHECK(pieces[2].text == k_pretty);  // braces inside strings and escaped quotes do not count
    CHECK(pieces[2].line == 4);
    CHECK(pieces[3].line == 12);
    CHECK(pieces[4].text == "{\"n\":3}");  // right after the previous one, on its last line
    CHECK(pieces[4].line == 19);
  }
}

TEST_CASE("splitter: a report cut off is named, and the next one is still read", "[fleet][splitter]") {
  // The first report stops in the middle (a node killed while writing), the next begins at a line start.
  const std::string stream = "{\n  \"a\": [1,\n  \"b\": \"unfinished\n{\"n\":2}\n";
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{100}}) {
    std::vector<Piece> pieces = split(stream, chunk);
    REQUIRE(pieces.size() == 2);
    CHECK_FALSE(pieces[0].document);
    CHECK(pieces[0].line == 1);
    CHECK(pieces[0].text == "truncated: a new report begins on line 4 before this one ends");
    CHECK(pieces[1].document);
    CHECK(pieces[1].text == "{\"n\":2}");
  }
}

TEST_CASE("splitter: the end of the input inside a report", "[fleet][splitter]") {
  std::vector<Piece> pieces = split("{\"n\":1}\n{\"schema_version\": 1, \"find", 5);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].document);
  CHECK_FALSE(pieces[1].document);
  CHECK(pieces[1].line == 2);
  CHECK(pieces[1].text == "truncated: the input ends inside this report (27 bytes of it)");
}

TEST_CASE("splitter: text and binary data between reports", "[fleet][splitter]") {
  std::string stream = "srun: error: node7: task 3: Exited with exit code 1\nmore noise\n{\"n\":1}\n";
  stream += std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10) + "\n{\"n\":2}\n42\n";
  std::vector<Piece> pieces = split(stream, 4);
  REQUIRE(pieces.size() == 5);
  CHECK_FALSE(pieces[0].document);
  CHECK(pieces[0].line == 1);
  CHECK(pieces[0].text == "not JSON: text (2 lines)");  // never the text itself: it may be any file
  CHECK(pieces[1].text == "{\"n\":1}");
  CHECK(pieces[2].line == 4);
  CHECK(pieces[2].text == "not JSON: binary data (an ELF file)");
  CHECK(pieces[3].text == "{\"n\":2}");
  CHECK(pieces[4].line == 6);  // a bare number is no report either
  CHECK(pieces[4].text == "not JSON: text (1 line)");
}

TEST_CASE("splitter: a foreign file's bytes are never in a reason", "[fleet][splitter]") {
  const std::string secrets[] = {
      "machine example.com login alice password hunter2\n",
      "root:$6$salt$hash:19000:0:99999:7:::\n",
      "AKIAIOSFODNN7EXAMPLE\nhttps://user:ghp_token@example.com/\n\n  \n",
      std::string("\x01hunter2\0\x02\n", 11),
      std::string("\x1f\x8b\x08hunter2\n", 11),
  };
  const std::string reasons[] = {"not JSON: text (1 line)", "not JSON: text (1 line)", "not JSON: text (2 lines)",
                                 "not JSON: binary data", "not JSON: binary data (gzip-compressed: decompress it first)"};
  for (std::size_t i = 0; i < std::size(secrets); ++i) {
    for (std::size_t chunk : {1, 3, 4096}) {
      std::vector<Piece> pieces = split(secrets[i] + "{\"n\":1}\n", chunk);
      REQUIRE(pieces.size() == 2);
      CHECK(pieces[0].line == 1);
      CHECK(pieces[0].text == reasons[i]);
      CHECK(pieces[1].document);
    }
  }
}

TEST_CASE("splitter: a document over the bound is skipped to its end, not kept", "[fleet][splitter]") {
  std::string big = "{\"pad\": \"" + std::string(5000, 'x') + "\"}";
  std::vector<Piece> pieces = split(big + "\n{\"n\":1}\n", 100, /*max_bytes=*/1024);
  REQUIRE(pieces.size() == 2);
  CHECK_FALSE(pieces[0].document);
  CHECK(pieces[0].text == "over the limit of 1024 bytes for one report (5011 bytes): not read");
  CHECK(pieces[1].text == "{\"n\":1}");
  std::vector<Piece> exact = split(big, 100, big.size());
  REQUIRE(exact.size() == 1);
  CHECK(exact[0].document);  // exactly at the bound is still kept
}

TEST_CASE("splitter: empty and blank input give nothing; a byte order mark is not data", "[fleet][splitter]") {
  CHECK(split("", 10).empty());
  CHECK(split(" \n\r\n\t", 1).empty());
  std::vector<Piece> bom = split("\xef\xbb\xbf{\"n\":1}", 1);
  REQUIRE(bom.size() == 1);
  CHECK(bom[0].text == "{\"n\":1}");
}

}  // namespace GD_UNITY_ID
