#include "probes/libraries/library_search.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ldconfig_tree.hpp"
#include "sys/real_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::ResolvedVia;
using gd::SearchInputs;
using gd::test::TempTree;
using List = std::vector<std::string>;

namespace {

const std::vector<std::string> k_debian_defaults = gd::default_library_dirs("x86_64", true);

gd::Resolution predict(const TempTree& tree, SearchInputs inputs) {
  gd::RealHost host(tree.root(), {});
  inputs.arch = "x86_64";
  return gd::predict_library(host, inputs, "libcuda.so.1", "libcuda.so");
}

/// A driver install: libcuda.so.<version> with its soname link, in `dir`.
void install(const TempTree& tree, const std::string& dir, const std::string& version, std::string_view fixture = "libcuda.x86_64.so") {
  tree.file(dir + "/libcuda.so." + version, gd::test::elf_fixture(fixture));
  tree.link(dir + "/libcuda.so.1", "libcuda.so." + version);
}

}  // namespace

TEST_CASE("library search: LD_LIBRARY_PATH and LD_PRELOAD as the loader splits them", "[probes][library_search]") {
  CHECK(gd::split_library_path("/usr/local/nvidia/lib64:/usr/local/nvidia/lib") ==
        List{"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"});
  CHECK(gd::split_library_path("/a;/b") == List{"/a", "/b"});
  CHECK(gd::split_library_path("/a::/b:") == List{"/a", "", "/b", ""});  // empty = current folder
  CHECK(gd::split_library_path("") == List{""});
  CHECK(gd::split_preload("/opt/a.so /opt/b.so:libc.so.6  ") == List{"/opt/a.so", "/opt/b.so", "libc.so.6"});
  CHECK(gd::split_preload("").empty());

  CHECK(gd::unpredictable_entry_reason("/usr/local/cuda/lib64").empty());
  CHECK_THAT(gd::unpredictable_entry_reason(""), Catch::Contains("current folder"));
  CHECK_THAT(gd::unpredictable_entry_reason("lib"), Catch::Contains("relative"));
  CHECK_THAT(gd::unpredictable_entry_reason("$ORIGIN/../lib"), Catch::Contains("$ORIGIN"));
  CHECK_THAT(gd::unpredictable_entry_reason("/opt/${LIB}"), Catch::Contains("$LIB"));
}

TEST_CASE("library search: the loader's built-in folders", "[probes][library_search]") {
  CHECK(k_debian_defaults == List{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"});
  CHECK(gd::default_library_dirs("aarch64", true) ==
        List{"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib", "/usr/lib"});
  CHECK(gd::default_library_dirs("x86_64", false) == List{"/lib64", "/usr/lib64"});
  CHECK(gd::default_library_dirs("riscv64", true) == List{"/lib64", "/usr/lib64"});
  CHECK(gd::multiarch_triplet("x86_64") == "x86_64-linux-gnu");
  CHECK(gd::multiarch_triplet("s390x").empty());
}

TEST_CASE("library search: LD_LIBRARY_PATH comes first, in order", "[probes][library_search]") {
  TempTree tree;
  install(tree, "/opt/old", "535.183.01");
  install(tree, "/usr/local/nvidia/lib64", "580.159.04");
  install(tree, "/usr/lib/x86_64-linux-gnu", "580.159.04");
  SearchInputs in;
  in.library_path = {"/opt/missing", "/usr/local/nvidia/lib64", "/opt/old"};
  in.default_dirs = k_debian_defaults;
  auto res = predict(tree, in);
  CHECK(res.via == ResolvedVia::ld_library_path);
  REQUIRE(res.file);
  CHECK(res.file->path == "/usr/local/nvidia/lib64/libcuda.so.1");
  CHECK(res.file->real_path == "/usr/local/nvidia/lib64/libcuda.so.580.159.04");
  CHECK(res.file->version == "580.159.04");
  CHECK(res.unknown_reason.empty());

  in.library_path = {"/opt/old/", "/usr/local/nvidia/lib64"};
  res = predict(tree, in);
  REQUIRE(res.file);
  CHECK(res.file->version == "535.183.01");
}

TEST_CASE("library search: files of another class or machine are skipped", "[probes][library_search]") {
  TempTree tree;
  install(tree, "/usr/lib/i386-linux-gnu", "580.159.04", "libcuda.i386.so");
  install(tree, "/opt/arm", "580.159.04", "libcuda.aarch64.so");
  install(tree, "/usr/lib/x86_64-linux-gnu", "580.159.04");
  tree.link("/opt/broken/libcuda.so.1", "libcuda.so.999.1.1");
  SearchInputs in;
  in.library_path = {"/usr/lib/i386-linux-gnu", "/opt/arm", "/opt/broken"};
  in.default_dirs = k_debian_defaults;
  auto res = predict(tree, in);
  CHECK(res.via == ResolvedVia::default_dirs);
  REQUIRE(res.file);
  CHECK(res.file->path == "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  CHECK_FALSE(res.broken);  // the skipped copies do not matter once a loadable one is found

  // Nothing loadable after them: the first skipped copy is what dlopen fails on ("wrong ELF class").
  in.default_dirs = {"/nowhere"};
  res = predict(tree, in);
  CHECK_FALSE(res.file);
  REQUIRE(res.broken);
  CHECK(res.broken->problem == gd::LoadProblem::wrong_class);
  CHECK(res.broken->path == "/usr/lib/i386-linux-gnu/libcuda.so.1");
}

TEST_CASE("library search: an empty, non-ELF or cut file ends the search", "[probes][library_search]") {
  // glibc's open_verify() raises "file too short" / "invalid ELF header" / "cannot read file data"
  // at once (measured with glibc 2.36: dlopen fails though a good copy follows in LD_LIBRARY_PATH).
  TempTree tree;
  install(tree, "/usr/lib/x86_64-linux-gnu", "580.159.04");
  tree.file("/opt/script/libcuda.so.1", "/* GNU ld script */\n");
  tree.file("/opt/empty/libcuda.so.1", "");
  std::string elf = gd::test::elf_fixture("libcuda.x86_64.so");
  tree.file("/opt/cut/libcuda.so.1", elf.substr(0, 100));
  SearchInputs in;
  in.default_dirs = k_debian_defaults;
  for (auto [dir, problem] : {std::pair{"/opt/script", gd::LoadProblem::too_short}, std::pair{"/opt/empty", gd::LoadProblem::empty},
                              std::pair{"/opt/cut", gd::LoadProblem::program_headers_cut}}) {
    in.library_path = {dir, "/usr/lib/x86_64-linux-gnu"};
    auto res = predict(tree, in);
    CHECK_FALSE(res.file);
    REQUIRE(res.broken);
    CHECK(res.broken->problem == problem);
    CHECK(res.via == ResolvedVia::ld_library_path);
  }
}

TEST_CASE("library search: ld.so.cache, then the default folders", "[probes][library_search]") {
  TempTree tree;
  install(tree, "/usr/local/nvidia/lib64", "580.159.04");
  install(tree, "/usr/lib/x86_64-linux-gnu", "570.86.15");
  gd::LdCache cache;
  cache.entries = {
      {0x0001, "libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1", 0, ""},                      // 32-bit: not for us
      {0x0303, "libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", 0, ""},
      {0x0303, "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0, ""},
  };
  SearchInputs in;
  in.cache = &cache;
  in.default_dirs = k_debian_defaults;
  auto res = predict(tree, in);
  CHECK(res.via == ResolvedVia::ld_so_cache);
  REQUIRE(res.file);
  CHECK(res.file->version == "580.159.04");

  // A stale cache: only its first entry counts; when that file is gone, the default folders.
  cache.entries[1].value = "/opt/removed/libcuda.so.1";
  res = predict(tree, in);
  CHECK(res.via == ResolvedVia::default_dirs);
  REQUIRE(res.file);
  CHECK(res.file->version == "570.86.15");

  // An unreadable cache leaves the answer open unless LD_LIBRARY_PATH decided first.
  in.cache = nullptr;
  in.cache_problem = "needs root (EACCES (Permission denied))";
  res = predict(tree, in);
  CHECK_FALSE(res.file);
  CHECK_THAT(res.unknown_reason, Catch::Contains("EACCES"));
  in.library_path = {"/usr/local/nvidia/lib64"};
  res = predict(tree, in);
  CHECK(res.via == ResolvedVia::ld_library_path);
}

TEST_CASE("library search: LD_PRELOAD, unchecked entries, nothing found", "[probes][library_search]") {
  TempTree tree;
  install(tree, "/opt/preload", "535.183.01");
  install(tree, "/usr/lib/x86_64-linux-gnu", "580.159.04");
  SearchInputs in;
  in.preload = {"/opt/preload/libcuda.so.535.183.01", "libfoo.so"};
  in.default_dirs = k_debian_defaults;
  auto res = predict(tree, in);
  CHECK(res.via == ResolvedVia::ld_preload);
  REQUIRE(res.file);
  CHECK(res.file->version == "535.183.01");

  in.preload.clear();
  in.library_path = {"", "$ORIGIN/lib", "/opt/none"};
  res = predict(tree, in);
  CHECK(res.via == ResolvedVia::default_dirs);
  CHECK(res.unchecked == List{"", "$ORIGIN/lib"});

  TempTree empty;
  res = predict(empty, in);
  CHECK(res.via == ResolvedVia::none);
  CHECK_FALSE(res.file);
  CHECK_THAT(res.unknown_reason, Catch::Contains("cannot be checked"));
  in.library_path.clear();
  res = predict(empty, in);
  CHECK(res.via == ResolvedVia::none);
  CHECK(res.unknown_reason.empty());
}

}  // namespace GD_UNITY_ID
