// --textfile's atomic write (sys/output_file): the whole file or nothing, mode 0644, and one
// error line naming the path.

#include "sys/output_file.hpp"

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> names_in(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) out.push_back(entry.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("output file: written in full with mode 0644, replacing the old one, no temporary left", "[sys][textfile]") {
  gd::test::TempTree tree;
  std::string path = tree.at("/gpudoctor.prom");
  ::umask(077);  // the mode is set explicitly, whatever the umask
  REQUIRE(gd::write_file_atomically(path, "old\n", 0644));
  REQUIRE(gd::write_file_atomically(path, "new content\n", 0644));
  ::umask(022);
  CHECK(slurp(path) == "new content\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);
  CHECK(names_in(tree.root()) == std::vector<std::string>{"gpudoctor.prom"});
}

TEST_CASE("output file: a missing folder, a folder given as the file, a read-only folder", "[sys][textfile]") {
  gd::test::TempTree tree;
  auto missing = gd::write_file_atomically(tree.at("/nope/m.prom"), "x", 0644);
  REQUIRE(!missing);
  CHECK(missing.error() == tree.at("/nope/m.prom") + ": the folder " + tree.at("/nope") + " does not exist");
  CHECK(!gd::check_output_path(tree.at("/nope/m.prom")));

  auto folder = gd::write_file_atomically(tree.root(), "x", 0644);
  REQUIRE(!folder);
  CHECK(folder.error() == tree.root() + ": is a folder, not a file");
  CHECK(!gd::check_output_path(tree.at("/")));  // no file name

  tree.file("/plain", "a file");
  auto not_folder = gd::check_output_path(tree.at("/plain/m.prom"));
  REQUIRE(!not_folder);
  CHECK(not_folder.error().ends_with(tree.at("/plain") + " is not a folder"));

  if (::geteuid() != 0) {  // root writes into a 0555 folder anyway
    tree.dir("/ro");
    ::chmod(tree.at("/ro").c_str(), 0555);
    auto denied = gd::write_file_atomically(tree.at("/ro/m.prom"), "x", 0644);
    REQUIRE(!denied);
    CHECK(denied.error().find("cannot write in the folder") != std::string::npos);
    CHECK(names_in(tree.at("/ro")).empty());
    ::chmod(tree.at("/ro").c_str(), 0755);
  }
}

TEST_CASE("output file: a failed write leaves the old file and no temporary", "[sys][textfile]") {
  gd::test::TempTree tree;
  std::string path = tree.at("/gpudoctor.prom");
  REQUIRE(gd::write_file_atomically(path, "old\n", 0644));
  // A file size limit of 8 bytes makes write(2) fail with EFBIG half way through the new content.
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 8;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  auto failed = gd::write_file_atomically(path, "new content longer than eight bytes\n", 0644);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  REQUIRE(!failed);
  CHECK(failed.error().starts_with(path + ": cannot write " + tree.at("/.gpudoctor.prom.")));
  CHECK(failed.error().ends_with("EFBIG (File too large)"));
  CHECK(names_in(tree.root()) == std::vector<std::string>{"gpudoctor.prom"});
  CHECK(slurp(path) == "old\n");
}

TEST_CASE("output file: only a regular file is replaced; a FIFO, a symlink or a dangling one is refused and kept",
          "[sys][textfile]") {
  gd::test::TempTree tree;
  tree.file("/target.prom", "the target\n");
  REQUIRE(::mkfifo(tree.at("/fifo.prom").c_str(), 0644) == 0);
  std::filesystem::create_symlink("target.prom", tree.at("/link.prom"));
  std::filesystem::create_symlink("/nonexistent/x.prom", tree.at("/dangling.prom"));
  struct Case {
    const char* name;
    const char* kind;
    bool symlink;
  };
  for (const Case& c : {Case{"/fifo.prom", "a FIFO", false}, Case{"/link.prom", "a symbolic link", true},
                        Case{"/dangling.prom", "a symbolic link", true}}) {
    CAPTURE(c.name);
    const std::string path = tree.at(c.name);
    struct stat before {};
    REQUIRE(::lstat(path.c_str(), &before) == 0);
    auto checked = gd::check_output_path(path);
    REQUIRE(!checked);
    CHECK(checked.error() == path + ": not a regular file (" + c.kind + "): --textfile replaces only a regular file");
    auto written = gd::write_file_atomically(path, "metrics\n", 0644);
    REQUIRE(!written);
    CHECK(written.error() == checked.error());
    struct stat after {};
    REQUIRE(::lstat(path.c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);
    CHECK((after.st_mode & S_IFMT) == (before.st_mode & S_IFMT));
    CHECK(S_ISLNK(after.st_mode) == c.symlink);
  }
  CHECK(slurp(tree.at("/target.prom")) == "the target\n");
  CHECK(names_in(tree.root()) == std::vector<std::string>{"dangling.prom", "fifo.prom", "link.prom", "target.prom"});
}

namespace {
void custom_handler(int) {}
}  // namespace

TEST_CASE("output file: the signal dispositions are the caller's again after the write (nohup's SIG_IGN stays)",
          "[sys][textfile]") {
  gd::test::TempTree tree;
  auto old_hup = std::signal(SIGHUP, SIG_IGN);
  auto old_term = std::signal(SIGTERM, custom_handler);
  auto old_xfsz = std::signal(SIGXFSZ, SIG_DFL);
  struct sigaction intr_before {};
  ::sigaction(SIGINT, nullptr, &intr_before);  // Catch2's own handler, or the default
  REQUIRE(gd::write_file_atomically(tree.at("/m.prom"), "x 1\n", 0644));
  struct sigaction hup {}, term {}, xfsz {}, intr {};
  ::sigaction(SIGHUP, nullptr, &hup);
  ::sigaction(SIGTERM, nullptr, &term);
  ::sigaction(SIGXFSZ, nullptr, &xfsz);
  ::sigaction(SIGINT, nullptr, &intr);
  CHECK(hup.sa_handler == SIG_IGN);
  CHECK(term.sa_handler == custom_handler);
  CHECK(xfsz.sa_handler == SIG_DFL);
  CHECK(intr.sa_handler == intr_before.sa_handler);
  std::signal(SIGHUP, old_hup);
  std::signal(SIGTERM, old_term);
  std::signal(SIGXFSZ, old_xfsz);
  CHECK(names_in(tree.root()) == std::vector<std::string>{"m.prom"});
}

}  // namespace GD_UNITY_ID
