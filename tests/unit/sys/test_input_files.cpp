// The user's input files for fleet and diff: regular files only, never blocking on a FIFO,
// folders walked in name order without following links to folders.
#include "sys/input_files.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

std::string read_all(gd::InputStream& in) {
  std::string out;
  std::vector<char> buffer(3);
  while (true) {
    auto n = in.read(buffer);
    REQUIRE(n);
    if (*n == 0) return out;
    out.append(buffer.data(), *n);
  }
}

}  // namespace

TEST_CASE("input files: a file's size when opened; read_append reads into the string's tail", "[sys][input_files]") {
  gd::test::TempTree tree;
  tree.file("/a.json", "{\"x\": 1}\n");
  auto in = gd::InputStream::open_file(tree.at("/a.json"));
  REQUIRE(in);
  CHECK(in->size_at_open() == 9u);
  std::string text = "head:";
  auto n = in->read_append(text, 4);
  REQUIRE(n);
  CHECK(*n == 4);
  CHECK(text == "head:{\"x\"");
  n = in->read_append(text, 100);
  REQUIRE(n);
  CHECK(*n == 5);
  CHECK(text == "head:{\"x\": 1}\n");
  n = in->read_append(text, 100);  // the end: nothing added
  REQUIRE(n);
  CHECK(*n == 0);
  CHECK(text.size() == 14);
  CHECK_FALSE(gd::InputStream::standard_input().size_at_open().has_value());

  std::vector<std::uint64_t> sizes;
  gd::walk_input_folder(
      tree.root(), std::vector<std::string_view>{".json"},
      [&](const std::string&, std::expected<gd::InputStream, std::string> entry) {
        REQUIRE(entry);
        sizes.push_back(entry->size_at_open().value_or(0));
      },
      [](const std::string&, const std::string&) {});
  CHECK(sizes == std::vector<std::uint64_t>{9});
}

TEST_CASE("input files: a regular file is read in chunks; what is no file says what it is", "[sys][input_files]") {
  gd::test::TempTree tree;
  tree.file("/a.json", "{\"x\": 1}\n");
  tree.fifo("/pipe.json");
  tree.dir("/folder");
  auto in = gd::InputStream::open_file(tree.at("/a.json"));
  REQUIRE(in);
  CHECK(read_all(*in) == "{\"x\": 1}\n");

  auto started = std::chrono::steady_clock::now();
  auto fifo = gd::InputStream::open_file(tree.at("/pipe.json"));  // no writer: a blocking open would hang here
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
  REQUIRE_FALSE(fifo);
  CHECK(fifo.error() == "a FIFO, not a regular file (pipe it to `-` instead)");
  CHECK(gd::InputStream::open_file(tree.at("/folder")).error() == "a folder, not a file");
  CHECK(gd::InputStream::open_file(tree.at("/missing")).error() == "No such file or directory");
  CHECK(gd::InputStream::open_file("/dev/null").error() == "a character device, not a regular file");

  CHECK(gd::classify_input(tree.at("/a.json")).kind == gd::InputKind::file);
  CHECK(gd::classify_input(tree.at("/folder")).kind == gd::InputKind::folder);
  gd::InputClass pipe = gd::classify_input(tree.at("/pipe.json"));
  CHECK(pipe.kind == gd::InputKind::unusable);
  CHECK(pipe.reason == "a FIFO, not a regular file (pipe it to `-` instead)");
}

TEST_CASE("input files: read_whole_input is bounded", "[sys][input_files]") {
  gd::test::TempTree tree;
  tree.file("/big.json", std::string(3u << 20, ' '));
  CHECK(gd::read_whole_input(tree.at("/big.json"), 2u << 20).error() == "larger than 2 MiB: not read");
  CHECK(gd::read_whole_input(tree.at("/big.json"), 4u << 20)->size() == 3u << 20);
}

TEST_CASE("input files: folders are walked recursively, sorted, by suffix, links to folders not followed",
          "[sys][input_files]") {
  gd::test::TempTree tree;
  tree.file("/r/b.json", "b");
  tree.file("/r/a.json", "a");
  tree.file("/r/notes.txt", "");
  tree.file("/r/sub/c.jsonl", "c");
  tree.file("/r/sub/deeper/d.json", "d");
  tree.fifo("/r/fifo.json");
  tree.file("/elsewhere/e.json", "secret");
  tree.link("/r/link-to-file.json", tree.at("/elsewhere/e.json"));  // leads out: not read
  tree.link("/r/relative-out.json", "../elsewhere/e.json");         // likewise
  tree.link("/r/link-inside.json", "sub/c.jsonl");                  // stays inside: read
  tree.link("/r/sub/up.json", tree.at("/r/a.json"));                // likewise, by an absolute path
  tree.link("/r/dangling.json", "nowhere.json");
  tree.link("/r/loop", tree.at("/r"));                 // a loop, were it followed
  tree.link("/r/folder.json", tree.at("/elsewhere"));  // a folder under a report's name
  std::vector<std::string> files;
  std::vector<std::string> problems;
  constexpr std::string_view suffixes[] = {".json", ".jsonl"};
  gd::walk_input_folder(
      tree.at("/r"), suffixes,
      [&](const std::string& f, std::expected<gd::InputStream, std::string> in) {
        files.push_back(f.substr(tree.root().size()) + ": " + (in ? read_all(*in) : in.error()));
      },
      [&](const std::string& p, const std::string& why) { problems.push_back(p + ": " + why); });
  const std::string out = "a symbolic link to a file outside " + tree.at("/r") +
                          ": not followed (name it on the command line to read it)";
  CHECK(files == std::vector<std::string>{"/r/a.json: a", "/r/b.json: b", "/r/dangling.json: No such file or directory",
                                          "/r/fifo.json: a FIFO, not a regular file (pipe it to `-` instead)",
                                          "/r/link-inside.json: c", "/r/link-to-file.json: " + out,
                                          "/r/relative-out.json: " + out, "/r/sub/c.jsonl: c",
                                          "/r/sub/deeper/d.json: d", "/r/sub/up.json: a"});
  CHECK(problems.empty());
  // Named on the command line, a link is read wherever it leads.
  auto named = gd::InputStream::open_file(tree.at("/r/link-to-file.json"));
  REQUIRE(named);
  CHECK(read_all(*named) == "secret");
}

}  // namespace GD_UNITY_ID
