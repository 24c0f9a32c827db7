#include "probes/shared/library_file.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "ldconfig_tree.hpp"
#include "sys/real_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::ElfCheck;
using gd::version_from_file_name;
using gd::test::TempTree;

TEST_CASE("library file: driver version from the real file name", "[probes][library_file]") {
  CHECK(version_from_file_name("libcuda.so.580.159.04", "libcuda.so", true) == "580.159.04");
  CHECK(version_from_file_name("libnvidia-ml.so.470.256.02", "libnvidia-ml.so", true) == "470.256.02");
  CHECK(version_from_file_name("libcuda.so.390.157", "libcuda.so", true) == "390.157");
  // The soname link, the link-time name and WSL's copies carry no driver version.
  CHECK(version_from_file_name("libcuda.so.1", "libcuda.so", true).empty());
  CHECK(version_from_file_name("libcuda.so", "libcuda.so", true).empty());
  CHECK(version_from_file_name("libcuda.so.1.1", "libcuda.so", true).empty());
  CHECK(version_from_file_name("libcuda.so.580.159.04.bak", "libcuda.so", true).empty());
  CHECK(version_from_file_name("libcuda.so.580..04", "libcuda.so", true).empty());
  CHECK(version_from_file_name("libcudadebugger.so.580.159.04", "libcuda.so", true).empty());
  // The CUDA runtime's versions are toolkit versions.
  CHECK(version_from_file_name("libcudart.so.13.0.96", "libcudart.so", false) == "13.0.96");
  CHECK(version_from_file_name("libcudart.so.12", "libcudart.so", false) == "12");
  CHECK(version_from_file_name("libcudart.so", "libcudart.so", false).empty());
}

TEST_CASE("library file: ELF class and machine from the header", "[probes][library_file]") {
  auto x86 = gd::parse_elf_ident(gd::test::elf_fixture("libcuda.x86_64.so"));
  REQUIRE(x86);
  CHECK(x86->elf_class == 2);
  CHECK(x86->machine == 62);
  CHECK(gd::elf_ident_text(*x86) == "ELF64 x86-64");
  auto i386 = gd::parse_elf_ident(gd::test::elf_fixture("libcuda.i386.so"));
  REQUIRE(i386);
  CHECK(gd::elf_ident_text(*i386) == "ELF32 i386");
  auto arm = gd::parse_elf_ident(gd::test::elf_fixture("libcuda.aarch64.so"));
  REQUIRE(arm);
  CHECK(gd::elf_ident_text(*arm) == "ELF64 AArch64");
  CHECK(gd::elf_ident_text({2, 21}) == "ELF64 PowerPC64");
  CHECK(gd::elf_ident_text({2, 999}) == "ELF64 machine 999");
  // A GNU ld script (what libc.so is), an empty file, a cut header.
  CHECK_FALSE(gd::parse_elf_ident("/* GNU ld script */\nGROUP ( libc.so.6 )\n"));
  CHECK_FALSE(gd::parse_elf_ident(""));
  CHECK_FALSE(gd::parse_elf_ident("\x7f" "ELF\x02\x01"));
  CHECK(gd::native_elf_ident("x86_64")->machine == 62);
  CHECK(gd::native_elf_ident("aarch64")->machine == 183);
  CHECK_FALSE(gd::native_elf_ident("ppc64le"));
}

TEST_CASE("library file: links are followed, folders too", "[probes][library_file]") {
  TempTree tree;
  tree.file("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", gd::test::elf_fixture("libcuda.x86_64.so"));
  tree.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.580.159.04");
  tree.link("/usr/lib/x86_64-linux-gnu/libcuda.so", "libcuda.so.1");
  tree.link("/lib", "usr/lib");  // merged /usr
  tree.link("/opt/abs", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  tree.link("/opt/loop-a", "loop-b");
  tree.link("/opt/loop-b", "loop-a");
  gd::RealHost host(tree.root(), {});
  CHECK(gd::canonical_path(host, "/lib/x86_64-linux-gnu/libcuda.so") == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
  CHECK(gd::canonical_path(host, "/opt/abs") == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
  CHECK(gd::canonical_path(host, "/lib/../lib/./x86_64-linux-gnu") == "/usr/lib/x86_64-linux-gnu");
  CHECK(gd::canonical_path(host, "/no/such/file") == "/no/such/file");
  CHECK(gd::canonical_path(host, "/") == "/");
  CHECK_FALSE(gd::canonical_path(host, "/opt/loop-a").empty());  // bounded, no hang

  auto file = gd::inspect_library_file(host, "/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so", true, "x86_64");
  CHECK(file.exists);
  CHECK_FALSE(file.broken_link);
  CHECK(file.real_path == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
  CHECK(file.version == "580.159.04");
  CHECK(file.elf == ElfCheck::native);
  CHECK(file.elf_text == "ELF64 x86-64");
  CHECK(gd::library_file_text(file) == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04 580.159.04");
  CHECK(gd::inspect_library_file(host, file.path, "libcuda.so", true, "aarch64").elf == ElfCheck::foreign);
}

TEST_CASE("library file: stubs, compat copies, broken links, other classes", "[probes][library_file]") {
  TempTree tree;
  std::string cuda64 = gd::test::elf_fixture("libcuda.x86_64.so");
  tree.file("/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so", cuda64);
  tree.file("/usr/local/cuda-13.0/compat/libcuda.so.580.95.05", cuda64);
  tree.link("/usr/local/cuda-13.0/compat/libcuda.so.1", "libcuda.so.580.95.05");
  tree.link("/usr/local/cuda", "cuda-13.0");
  tree.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.570.86.15");  // the driver was removed
  tree.file("/usr/lib/i386-linux-gnu/libcuda.so.580.159.04", gd::test::elf_fixture("libcuda.i386.so"));
  tree.file("/usr/lib/x86_64-linux-gnu/libcuda.so", "/* GNU ld script */\n");
  gd::RealHost host(tree.root(), {});

  auto stub = gd::inspect_library_file(host, "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so", "libcuda.so", true, "x86_64");
  CHECK(stub.is_stub);
  CHECK_FALSE(stub.is_compat);
  CHECK(stub.version.empty());
  CHECK(gd::library_file_text(stub) == "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so unknown (stub)");

  auto compat = gd::inspect_library_file(host, "/usr/local/cuda/compat/libcuda.so.1", "libcuda.so", true, "x86_64");
  CHECK(compat.is_compat);
  CHECK(compat.version == "580.95.05");
  CHECK(gd::library_file_text(compat) == "/usr/local/cuda-13.0/compat/libcuda.so.580.95.05 580.95.05 (compat)");

  auto broken = gd::inspect_library_file(host, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so", true, "x86_64");
  CHECK(broken.broken_link);
  CHECK_FALSE(broken.exists);
  CHECK_THAT(broken.error, Catch::Contains("ENOENT"));

  auto i386 = gd::inspect_library_file(host, "/usr/lib/i386-linux-gnu/libcuda.so.580.159.04", "libcuda.so", true, "x86_64");
  CHECK(i386.elf == ElfCheck::foreign);
  CHECK(gd::library_file_text(i386) == "/usr/lib/i386-linux-gnu/libcuda.so.580.159.04 580.159.04 (ELF32 i386, not loadable here)");

  auto script = gd::inspect_library_file(host, "/usr/lib/x86_64-linux-gnu/libcuda.so", "libcuda.so", true, "x86_64");
  CHECK(script.elf == ElfCheck::not_elf);

  auto missing = gd::inspect_library_file(host, "/nowhere/libcuda.so.1", "libcuda.so", true, "x86_64");
  CHECK_FALSE(missing.exists);
  CHECK_FALSE(missing.broken_link);
}

}  // namespace GD_UNITY_ID
