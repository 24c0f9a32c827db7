// The user's input files for fleet and diff: regular files only, never blocking on a FIFO,
// folders walked in name order without following links to folders.
#include "sys/input_files.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "temp_tree.hpp"

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
  tree.file("/r/b.json", "");
  tree.file("/r/a.json", "");
  tree.file("/r/notes.txt", "");
  tree.file("/r/sub/c.jsonl", "");
  tree.file("/r/sub/deeper/d.json", "");
  tree.fifo("/r/fifo.json");
  tree.file("/elsewhere/e.json", "");
  tree.link("/r/link-to-file.json", tree.at("/elsewhere/e.json"));
  tree.link("/r/loop", tree.at("/r"));          // a loop, were it followed
  tree.link("/r/folder.json", tree.at("/elsewhere"));  // a folder under a report's name
  std::vector<std::string> files;
  std::vector<std::string> problems;
  constexpr std::string_view suffixes[] = {".json", ".jsonl"};
  gd::walk_input_folder(
      tree.at("/r"), suffixes, [&](const std::string& f) { files.push_back(f.substr(tree.root().size())); },
      [&](const std::string& p, const std::string& why) { problems.push_back(p + ": " + why); });
  CHECK(files == std::vector<std::string>{"/r/a.json", "/r/b.json", "/r/fifo.json", "/r/link-to-file.json",
                                          "/r/sub/c.jsonl", "/r/sub/deeper/d.json"});
  CHECK(problems.empty());
}
