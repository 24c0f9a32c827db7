#include "sys/real_host.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::FileKind;
using gd::HelperOutcome;
using gd::HelperRequest;
using gd::RealHost;
using gd::test::TempTree;

namespace {

using Names = std::vector<std::string>;

constexpr std::size_t k_max = 1 << 20;
constexpr std::string_view k_fake_passwd = "root:x:0:0:gpudoctor test root:/root:/bin/sh\n";
constexpr std::string_view k_version_file =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
    "GCC version:  gcc version 15.3.0 (GCC) \n";

template <typename T>
int error_of(const gd::IoResult<T>& result) {
  return result ? 0 : result.error().code;
}

/// A small host tree: proc files, a merged /usr with libcuda links, links that try to leave
/// the root, loops, a FIFO and a folder with unsorted names.
void fill(const TempTree& tree) {
  tree.file("/etc/passwd", k_fake_passwd);
  tree.file("/proc/driver/nvidia/version", k_version_file);
  tree.file("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", "fake libcuda");
  tree.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.580.159.04");
  tree.link("/lib", "usr/lib");                                            // merged /usr
  tree.file("/opt/cuda-13.0/lib64/stubs/libcuda.so", "stub libcuda");
  tree.link("/usr/local/cuda", "/opt/cuda-13.0");                          // absolute, mid-path
  tree.link("/etc/alternatives/passwd", "/etc/passwd");                    // absolute, at the end
  tree.link("/usr/share/escape", "../../../../../../etc/passwd");          // climbs past the root
  tree.link("/loop/a", "b");
  tree.link("/loop/b", "/loop/a");
  tree.link("/loop/self", "./self");
  tree.link("/dangling", "/nowhere");
  tree.fifo("/run/fifo");
  for (const char* name : {"b", "a", "C", ".hidden", "10", "9"}) {
    tree.file(std::string("/unsorted/") + name, name);
  }
}

/// Fails the test (by ending the process) instead of hanging when a read blocks.
struct HangGuard {
  HangGuard() { ::alarm(20); }
  ~HangGuard() { ::alarm(0); }
};

}  // namespace

TEST_CASE("real host: reads inside the root", "[sys][real_host]") {
  TempTree tree;
  fill(tree);
  RealHost host(tree.root(), {});
  CHECK(host.read_file("/proc/driver/nvidia/version", k_max) == std::string(k_version_file));
  auto st = host.stat("/proc/driver/nvidia/version");
  REQUIRE(st);
  CHECK(st->kind == FileKind::regular);
  CHECK(st->size == k_version_file.size());
  CHECK(host.stat("/proc/driver")->kind == FileKind::directory);
  CHECK(error_of(host.read_file("/proc/driver/nvidia/params", k_max)) == ENOENT);
  CHECK(error_of(host.read_file("/etc/passwd/x", k_max)) == ENOTDIR);
  CHECK(error_of(host.read_file("proc/driver/nvidia/version", k_max)) == EINVAL);  // not absolute
  CHECK(error_of(host.read_file("", k_max)) == EINVAL);

  RealHost trailing_slash(tree.root() + "/", {});
  CHECK(trailing_slash.read_file("/etc/passwd", k_max) == std::string(k_fake_passwd));
}

TEST_CASE("real host: links resolve inside the root", "[sys][real_host]") {
  TempTree tree;
  fill(tree);
  RealHost host(tree.root(), {});

  SECTION("relative links, also in the top folder and mid-path") {
    CHECK(host.read_file("/usr/lib/x86_64-linux-gnu/libcuda.so.1", k_max) == std::string("fake libcuda"));
    CHECK(host.read_file("/lib/x86_64-linux-gnu/libcuda.so.1", k_max) == std::string("fake libcuda"));
    CHECK(host.stat("/lib/x86_64-linux-gnu/libcuda.so.1")->kind == FileKind::regular);
    CHECK(host.list_dir("/lib") == Names{"x86_64-linux-gnu"});
  }
  SECTION("absolute links restart at the root, never at the real /") {
    auto passwd = host.read_file("/etc/alternatives/passwd", k_max);
    CHECK(passwd == std::string(k_fake_passwd));
    CHECK(host.read_file("/usr/local/cuda/lib64/stubs/libcuda.so", k_max) == std::string("stub libcuda"));
    CHECK(error_of(host.read_file("/dangling", k_max)) == ENOENT);  // /nowhere is not looked up on the host
  }
  SECTION("'..' stops at the root") {
    for (const char* path : {"/../../../etc/passwd", "/usr/../../../etc/passwd", "/usr/share/escape",
                             "/proc/./../etc/passwd"}) {
      CAPTURE(path);
      CHECK(host.read_file(path, k_max) == std::string(k_fake_passwd));
    }
  }
  SECTION("lstat and read_link do not follow the last link") {
    auto lst = host.lstat("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    REQUIRE(lst);
    CHECK(lst->kind == FileKind::symlink);
    CHECK(host.lstat("/lib")->kind == FileKind::symlink);
    CHECK(host.lstat("/lib/x86_64-linux-gnu/libcuda.so.1")->kind == FileKind::symlink);  // earlier links are followed
    CHECK(host.read_link("/usr/lib/x86_64-linux-gnu/libcuda.so.1") == std::string("libcuda.so.580.159.04"));
    CHECK(host.read_link("/etc/alternatives/passwd") == std::string("/etc/passwd"));
    CHECK(host.read_link("/lib") == std::string("usr/lib"));
    CHECK(error_of(host.read_link("/etc/passwd")) == EINVAL);
    CHECK(error_of(host.read_link("/missing")) == ENOENT);
  }
}

TEST_CASE("real host: link loops end with ELOOP", "[sys][real_host]") {
  TempTree tree;
  fill(tree);
  RealHost host(tree.root(), {});
  for (const char* path : {"/loop/a", "/loop/b", "/loop/self", "/loop/a/below"}) {
    CAPTURE(path);
    CHECK(error_of(host.read_file(path, k_max)) == ELOOP);
    CHECK(error_of(host.stat(path)) == ELOOP);
    CHECK(error_of(host.list_dir(path)) == ELOOP);
    CHECK(host.open_device(path) == ELOOP);
  }
  CHECK(host.lstat("/loop/a")->kind == FileKind::symlink);
  CHECK(host.read_link("/loop/self") == std::string("./self"));
}

TEST_CASE("real host: only regular files are read", "[sys][real_host]") {
  TempTree tree;
  fill(tree);
  RealHost host(tree.root(), {});
  HangGuard guard;
  // A FIFO without a writer would block a plain open(2) forever.
  CHECK(error_of(host.read_file("/run/fifo", k_max)) == ENXIO);
  CHECK(host.stat("/run/fifo")->kind == FileKind::fifo);
  CHECK(host.open_device("/run/fifo") == ENODEV);
  CHECK(error_of(host.read_file("/run", k_max)) == EISDIR);
  CHECK(error_of(host.read_file("/", k_max)) == EISDIR);
  CHECK(error_of(host.read_file("/lib", k_max)) == EISDIR);  // a link to a folder
}

TEST_CASE("real host: reads stop at max_bytes", "[sys][real_host]") {
  TempTree tree;
  std::string big;
  for (int i = 0; big.size() < 100000; ++i) {
    big += "line " + std::to_string(i) + "\n";
  }
  tree.file("/big", big);
  RealHost host(tree.root(), {});
  CHECK(host.read_file("/big", 0) == std::string());
  CHECK(host.read_file("/big", 10) == big.substr(0, 10));
  CHECK(host.read_file("/big", 20000) == big.substr(0, 20000));  // more than one read(2)
  CHECK(host.read_file("/big", big.size()) == big);
  CHECK(host.read_file("/big", big.size() * 2) == big);
  CHECK(host.stat("/big")->size == big.size());
}

TEST_CASE("real host: ranges of one file, of another, and of the same file after it grew", "[sys][real_host]") {
  TempTree tree;
  tree.file("/a", "0123456789");
  tree.file("/b", "abcdefghij");
  RealHost host(tree.root(), {});
  CHECK(host.read_range("/a", 2, 3) == std::string("234"));
  CHECK(host.read_range("/a", 8, 100) == std::string("89"));  // never past the end
  CHECK(host.read_range("/b", 0, 4) == std::string("abcd"));  // the kept file changes with the path
  CHECK(host.read_range("/a", 10, 5) == std::string());
  tree.file("/a", "0123456789ABCDEF");  // rewritten in place, longer
  CHECK(host.read_range("/a", 10, 100) == std::string("ABCDEF"));
  CHECK_FALSE(host.read_range("/missing", 0, 1));
  CHECK(host.read_range("/b", 6, 2) == std::string("gh"));  // a failed open drops nothing it kept
}

TEST_CASE("real host: folders are listed sorted, without . and ..", "[sys][real_host]") {
  TempTree tree;
  fill(tree);
  RealHost host(tree.root(), {});
  CHECK(host.list_dir("/unsorted") == Names{".hidden", "10", "9", "C", "a", "b"});
  CHECK(host.list_dir("/") == Names{"dangling", "etc", "lib", "loop", "opt", "proc", "run", "unsorted", "usr"});
  CHECK(error_of(host.list_dir("/etc/passwd")) == ENOTDIR);
  CHECK(error_of(host.list_dir("/missing")) == ENOENT);
}

TEST_CASE("real host: open_device tries character devices only", "[sys][real_host]") {
  TempTree tree;
  fill(tree);
  tree.file("/dev/nvidia0", "");  // a regular file where a device node should be
  RealHost host(tree.root(), {});
  CHECK(host.open_device("/dev/nvidia0") == ENODEV);
  CHECK(host.open_device("/dev") == ENODEV);
  CHECK(host.open_device("/dev/nvidiactl") == ENOENT);
}

TEST_CASE("real host: the helper never runs under --root", "[sys][real_host]") {
  TempTree tree;
  const unsigned char fake_elf[] = {0x7f, 'E', 'L', 'F'};
  RealHost host(tree.root(), fake_elf);
  HelperOutcome outcome = host.run_cuda_helper(HelperRequest{});
  CHECK(outcome.status == HelperOutcome::Status::not_run);
  CHECK(outcome.error == "not run: --root inspects a folder, not the driver of this machine");
}

TEST_CASE("real host: the live root", "[sys][real_host]") {
  RealHost host("/", {});
  auto status = host.read_file("/proc/self/status", 64 * 1024);
  REQUIRE(status);
  CHECK(status->starts_with("Name:\t"));
  CHECK(status->find("\nPid:\t" + std::to_string(::getpid()) + "\n") != std::string::npos);
  CHECK(host.stat("/proc/self")->kind == FileKind::directory);
  CHECK(host.lstat("/proc/self")->kind == FileKind::symlink);
  CHECK(error_of(host.read_file("proc/self/status", 1024)) == EINVAL);
  CHECK(host.identity().uid == ::geteuid());
  CHECK(host.uname().sysname == "Linux");
  HelperOutcome outcome = host.run_cuda_helper(HelperRequest{});
  CHECK(outcome.status == HelperOutcome::Status::not_run);
  CHECK(outcome.error == "not run: this build has no embedded CUDA helper");
}

TEST_CASE("real host: only allowlisted variables are read", "[sys][real_host]") {
  RealHost host("/", {});
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-48a35ae5", 1);
  ::setenv("HF_TOKEN", "hf_not_a_real_token", 1);
  CHECK(host.env("CUDA_VISIBLE_DEVICES") == "GPU-48a35ae5");
  CHECK_THROWS_AS(host.env("HF_TOKEN"), std::logic_error);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ::unsetenv("HF_TOKEN");
  CHECK(host.env("CUDA_VISIBLE_DEVICES") == std::nullopt);
}

TEST_CASE("real host: stat(2) results convert to FileStat", "[sys][real_host]") {
  struct ::stat st {};
  st.st_mode = S_IFCHR | 0666;
  st.st_rdev = makedev(195, 255);
  st.st_uid = 0;
  st.st_gid = 44;
  gd::FileStat ctl = gd::file_stat_from(st);
  CHECK(ctl.kind == FileKind::char_device);
  CHECK(ctl.mode == 0666);
  CHECK(ctl.major == 195);
  CHECK(ctl.minor == 255);
  CHECK(ctl.gid == 44);

  st = {};
  st.st_mode = S_IFDIR | S_ISVTX | 0777;
  st.st_rdev = makedev(1, 2);
  gd::FileStat shm = gd::file_stat_from(st);
  CHECK(shm.kind == FileKind::directory);
  CHECK(shm.mode == 01777);
  CHECK(shm.major == 0);  // device numbers only for device nodes

  st = {};
  st.st_mode = S_IFREG | 0644;
  st.st_size = 4096;
  CHECK(gd::file_stat_from(st).kind == FileKind::regular);
  CHECK(gd::file_stat_from(st).size == 4096);
  st.st_mode = S_IFBLK | 0660;
  CHECK(gd::file_stat_from(st).kind == FileKind::block_device);
  st.st_mode = S_IFIFO | 0600;
  CHECK(gd::file_stat_from(st).kind == FileKind::fifo);
  st.st_mode = S_IFSOCK | 0755;
  CHECK(gd::file_stat_from(st).kind == FileKind::socket);
  st.st_mode = S_IFLNK | 0777;
  CHECK(gd::file_stat_from(st).kind == FileKind::symlink);
}

TEST_CASE("real host: the walk without openat2 answers as openat2 does", "[sys][real_host][rooted_walk]") {
  TempTree tree;
  fill(tree);
  RealHost kernel(tree.root(), {});
  RealHost walk(tree.root(), {}, gd::RootedWalk::Kernel::walk_only);
  auto same = [](const auto& a, const auto& b) { return a ? (b && *a == *b) : (!b && a.error().code == b.error().code); };
  auto kind = [](const gd::IoResult<gd::FileStat>& st) { return st ? gd::IoResult<FileKind>(st->kind) : std::unexpected(st.error()); };
  for (const char* path : {"/", "/etc/passwd", "/etc/passwd/x", "/etc/passwd/..", "/lib/x86_64-linux-gnu/libcuda.so.1",
                           "/usr/local/cuda/lib64/stubs/libcuda.so", "/etc/alternatives/passwd", "/usr/share/escape",
                           "/../../etc/passwd", "/lib/..", "/lib/./x86_64-linux-gnu/", "/loop/a", "/loop/self/x",
                           "/dangling", "/missing", "/missing/..", "/run/fifo", "/unsorted"}) {
    CAPTURE(path);
    CHECK(same(kernel.read_file(path, k_max), walk.read_file(path, k_max)));
    CHECK(same(kind(kernel.stat(path)), kind(walk.stat(path))));
    CHECK(same(kind(kernel.lstat(path)), kind(walk.lstat(path))));
    CHECK(same(kernel.read_link(path), walk.read_link(path)));
    CHECK(same(kernel.list_dir(path), walk.list_dir(path)));
    CHECK(kernel.open_device(path) == walk.open_device(path));
  }
}

}  // namespace GD_UNITY_ID
