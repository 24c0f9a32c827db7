#include "sys/rooted_walk.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>

#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::RootedWalk;
using gd::test::TempTree;
using Follow = RootedWalk::Follow;
using Kernel = RootedWalk::Kernel;

namespace {

/// A tree whose root is TREE/root, with TREE/secret beside it (outside the root) holding
/// "OUTSIDE" and TREE/root/secret inside it holding "INSIDE": any answer of "OUTSIDE" escaped.
struct Rooted {
  TempTree tree;
  std::string root = tree.at("/root");
  Rooted() {
    tree.file("/secret", "OUTSIDE");
    tree.file("/root/secret", "INSIDE");
    tree.file("/root/etc/f", "F");
    tree.link("/root/etc/rel", "f");                                   // relative, same folder
    tree.link("/root/etc/up", "../../../../../../secret");             // climbs past the root
    tree.link("/root/etc/abs", "/secret");                             // absolute: the root's /secret
    tree.link("/root/etc/outside", tree.at("/secret"));                // the real path outside
    tree.link("/root/lib", "usr/lib");                                 // a folder link at the top
    tree.file("/root/usr/lib/x/libfoo.so", "FOO");
    tree.link("/root/usr/lib/x/parent", "..");
    tree.link("/root/loop/a", "b");
    tree.link("/root/loop/b", "/loop/a");
    tree.link("/root/loop/self", "./self");
    tree.link("/root/dangling", "/nowhere");
    tree.link("/root/escape_dir", tree.at(""));                        // the folder holding the root
  }
};

/// The content of what `path` names, read through the walk (reopen of the found file).
std::string read(const RootedWalk& walk, std::string_view path) {
  auto found = walk.find(path, Follow::last_link);
  if (!found) return "errno " + std::to_string(found.error());
  auto fd = walk.reopen(*found, O_RDONLY | O_NONBLOCK);
  if (!fd) return "errno " + std::to_string(fd.error());
  char buffer[64];
  ssize_t n = ::read(fd->get(), buffer, sizeof buffer);
  return n < 0 ? "read failed" : std::string(buffer, static_cast<std::size_t>(n));
}

int error_of(const RootedWalk& walk, std::string_view path, Follow follow = Follow::last_link) {
  auto found = walk.find(path, follow);
  return found ? 0 : found.error();
}

}  // namespace

TEST_CASE("rooted walk: both modes resolve as chroot would", "[sys][rooted_walk]") {
  Rooted t;
  Kernel kernel = GENERATE(Kernel::openat2_if_present, Kernel::walk_only);
  RootedWalk walk(t.root, kernel);
  CAPTURE(walk.uses_openat2());
  REQUIRE(walk.root_error() == 0);

  SECTION("plain paths, relative links and folder links mid-path") {
    CHECK(read(walk, "/etc/f") == "F");
    CHECK(read(walk, "/etc/rel") == "F");
    CHECK(read(walk, "/lib/x/libfoo.so") == "FOO");
    CHECK(read(walk, "/lib/x/parent/x/libfoo.so") == "FOO");  // ".." of the link's real folder
    CHECK(read(walk, "/lib/x/../x/./libfoo.so") == "FOO");
    CHECK(read(walk, "//etc///f/") == "F");
  }
  SECTION("'..' stops at the root") {
    CHECK(read(walk, "/../../../secret") == "INSIDE");
    CHECK(read(walk, "/etc/../../../../secret") == "INSIDE");
    CHECK(read(walk, "/etc/up") == "INSIDE");
  }
  SECTION("absolute link targets restart at the root, never at the real /") {
    CHECK(read(walk, "/etc/abs") == "INSIDE");
    CHECK(error_of(walk, "/etc/outside") == ENOENT);  // TREE/secret is looked up inside the root
    CHECK(error_of(walk, "/escape_dir/secret") == ENOENT);
  }
  SECTION("loops end with ELOOP, also mid-path") {
    for (const char* path : {"/loop/a", "/loop/b", "/loop/self", "/loop/a/below"}) {
      CAPTURE(path);
      CHECK(error_of(walk, path) == ELOOP);
    }
  }
  SECTION("40 links are followed, the 41st is ELOOP") {
    for (int i = 0; i < 41; ++i) {
      t.tree.link("/root/chain/l" + std::to_string(i), "l" + std::to_string(i + 1));
    }
    t.tree.file("/root/chain/l41", "END");
    CHECK(read(walk, "/chain/l1") == "END");
    CHECK(error_of(walk, "/chain/l0") == ELOOP);
  }
  SECTION("dangling links, missing names, files used as folders") {
    CHECK(error_of(walk, "/dangling") == ENOENT);
    CHECK(error_of(walk, "/missing") == ENOENT);
    CHECK(error_of(walk, "/missing/x") == ENOENT);
    CHECK(error_of(walk, "/etc/f/x") == ENOTDIR);
    CHECK(error_of(walk, "/etc/f/..") == ENOTDIR);
    CHECK(error_of(walk, "etc/f") == EINVAL);  // not absolute
    CHECK(error_of(walk, "") == EINVAL);
  }
  SECTION("a symlink as the last component is the link itself without following") {
    for (const char* path : {"/etc/abs", "/dangling", "/loop/a", "/lib"}) {
      CAPTURE(path);
      auto found = walk.find(path, Follow::not_last_link);
      REQUIRE(found);
      CHECK(S_ISLNK(found->st.st_mode));
    }
    auto link = walk.find("/lib/x/parent", Follow::not_last_link);  // earlier links are followed
    REQUIRE(link);
    CHECK(gd::read_link_fd(link->object.get()) == std::string(".."));
    CHECK(gd::read_link_fd(walk.find("/dangling", Follow::not_last_link)->object.get()) == std::string("/nowhere"));
    auto file = walk.find("/etc/f", Follow::not_last_link);
    REQUIRE(file);
    CHECK(S_ISREG(file->st.st_mode));
  }
  SECTION("the root itself, and folders reached by '.' and '..'") {
    for (const char* path : {"/", "/..", "/etc/..", "/lib/x/.", "/lib"}) {
      CAPTURE(path);
      auto found = walk.find(path, Follow::last_link);
      REQUIRE(found);
      CHECK(S_ISDIR(found->st.st_mode));
      CHECK(walk.reopen(*found, O_RDONLY));
    }
    struct ::stat root_st {};
    REQUIRE(::stat(t.root.c_str(), &root_st) == 0);
    CHECK(walk.find("/..", Follow::last_link)->st.st_ino == root_st.st_ino);
  }
}

TEST_CASE("rooted walk: a file renamed over the name after it was found is not opened", "[sys][rooted_walk]") {
  Rooted t;
  Kernel kernel = GENERATE(Kernel::openat2_if_present, Kernel::walk_only);
  RootedWalk walk(t.root, kernel);
  auto found = walk.find("/etc/f", Follow::last_link);
  REQUIRE(found);
  SECTION("another file") {
    t.tree.file("/root/etc/g", "G");
    REQUIRE(std::rename(t.tree.at("/root/etc/g").c_str(), t.tree.at("/root/etc/f").c_str()) == 0);
    CHECK(walk.reopen(*found, O_RDONLY | O_NONBLOCK).error() == ENXIO);
  }
  SECTION("a symlink to the outside") {
    t.tree.link("/root/etc/swap", t.tree.at("/secret"));
    REQUIRE(std::rename(t.tree.at("/root/etc/swap").c_str(), t.tree.at("/root/etc/f").c_str()) == 0);
    CHECK(walk.reopen(*found, O_RDONLY | O_NONBLOCK).error() == ENXIO);
    CHECK(error_of(walk, "/etc/f") == ENOENT);  // found again: the link is resolved inside the root
  }
}

TEST_CASE("rooted walk: a folder swapped for a link to the outside after it was found", "[sys][rooted_walk]") {
  Rooted t;
  Kernel kernel = GENERATE(Kernel::openat2_if_present, Kernel::walk_only);
  RootedWalk walk(t.root, kernel);
  t.tree.file("/outside_dir/secret", "OUTSIDE");
  auto found = walk.find("/etc", Follow::last_link);
  REQUIRE(found);
  REQUIRE(std::rename(t.tree.at("/root/etc").c_str(), t.tree.at("/root/etc.old").c_str()) == 0);
  t.tree.link("/root/etc", t.tree.at("/outside_dir"));
  // The folder found is opened as itself, never as what its name now points to.
  auto dir = walk.reopen(*found, O_RDONLY);
  REQUIRE(dir);
  CHECK(::faccessat(dir->get(), "f", F_OK, 0) == 0);
  CHECK(error_of(walk, "/etc/secret") == ENOENT);
}

TEST_CASE("rooted walk: openat2 is used where the kernel has it, and a missing root is an error", "[sys][rooted_walk]") {
  Rooted t;
  struct {
    std::uint64_t flags, mode, resolve;
  } how{O_PATH | O_CLOEXEC, 0, 0x10};
  int root_fd = ::open(t.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(root_fd >= 0);
  long fd = ::syscall(437, root_fd, ".", &how, sizeof how);  // SYS_openat2, RESOLVE_IN_ROOT
  bool kernel_has_it = fd >= 0;
  if (fd >= 0) ::close(static_cast<int>(fd));
  ::close(root_fd);
  CHECK(RootedWalk(t.root).uses_openat2() == kernel_has_it);
  CHECK_FALSE(RootedWalk(t.root, Kernel::walk_only).uses_openat2());

  RootedWalk missing(t.tree.at("/no-such-root"));
  CHECK(missing.root_error() == ENOENT);
  CHECK(error_of(missing, "/etc/f") == ENOENT);
  RootedWalk file_root(t.tree.at("/secret"));
  CHECK(file_root.root_error() == ENOTDIR);
}

}  // namespace GD_UNITY_ID
