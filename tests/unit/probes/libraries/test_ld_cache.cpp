#include "probes/libraries/ld_cache.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "ldconfig_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::LdCache;
using gd::LdCacheEntry;
using gd::LdCacheFormat;
using gd::parse_ld_cache;
using gd::test::TempTree;

namespace {

/// A root like a driver install: the libraries under /usr/local/nvidia/lib64 (the NVIDIA
/// container toolkit's place), a 32-bit copy, a toolkit stubs folder and libcudart, all listed
/// by /etc/ld.so.conf.d/*.conf files, the way Debian includes them.
void make_driver_root(const TempTree& tree) {
  std::string cuda64 = gd::test::elf_fixture("libcuda.x86_64.so");
  tree.file("/usr/local/nvidia/lib64/libcuda.so.580.159.04", cuda64);
  tree.file("/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04", gd::test::elf_fixture("libnvidia-ml.x86_64.so"));
  tree.file("/usr/lib/i386-linux-gnu/libcuda.so.580.159.04", gd::test::elf_fixture("libcuda.i386.so"));
  tree.file("/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so", cuda64);
  tree.file("/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96", gd::test::elf_fixture("libcudart.x86_64.so"));
  tree.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n");
  tree.file("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda-13.0/targets/x86_64-linux/lib\n");
  tree.file("/etc/ld.so.conf.d/nvidia.conf", "/usr/local/nvidia/lib64\n/usr/local/nvidia/lib\n");
  tree.file("/etc/ld.so.conf.d/stubs.conf", "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs\n");
  tree.file("/etc/ld.so.conf.d/zz_i386.conf", "/usr/lib/i386-linux-gnu\n");
}

/// An entry the way `ldconfig -p` prints it.
std::string print_entry(const LdCacheEntry& e) {
  std::string hwcaps = e.hwcaps_subdir.empty() ? "" : ", hwcap: \"" + e.hwcaps_subdir + "\"";
  return "\t" + e.key + " (" + gd::ld_cache_flags_text(e.flags) + hwcaps + ") => " + e.value;
}

/// The entry lines of `ldconfig -p` output.
std::vector<std::string> entry_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (line.starts_with("\t")) {
      out.push_back(line);
    }
    if (end == std::string::npos) {
      break;
    }
    pos = end + 1;
  }
  return out;
}

std::vector<std::string> printed(const LdCache& cache) {
  std::vector<std::string> out;
  for (const LdCacheEntry& e : cache.entries) {
    out.push_back(print_entry(e));
  }
  return out;
}

/// Builds the driver root, runs the real ldconfig in `format` and parses the result.
struct RealCache {
  TempTree tree;
  std::string bytes;
  LdCache cache;
  std::vector<std::string> ldconfig_lines;
};

bool make_real_cache(RealCache& rc, std::string_view format) {
  make_driver_root(rc.tree);
  if (gd::test::run_ldconfig(rc.tree, format) != 0) {
    return false;
  }
  rc.bytes = gd::test::tree_file(rc.tree, "/etc/ld.so.cache");
  auto parsed = parse_ld_cache(rc.bytes);
  REQUIRE(parsed);
  rc.cache = *parsed;
  rc.ldconfig_lines = entry_lines(gd::test::ldconfig_print(rc.tree));
  return true;
}

}  // namespace

TEST_CASE("ld.so.cache: the real ldconfig's default format", "[probes][ld_cache][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  RealCache rc;
  REQUIRE(make_real_cache(rc, "new"));
  CHECK(rc.bytes.starts_with("glibc-ld.so.cache1.1"));
  CHECK(rc.cache.format == LdCacheFormat::new_only);
  CHECK_THAT(rc.cache.generator, Catch::StartsWith("ldconfig (") && Catch::Contains("release version 2."));
  // Exactly what the real tool reads back from the same file, in the same order.
  REQUIRE_FALSE(rc.ldconfig_lines.empty());
  CHECK(printed(rc.cache) == rc.ldconfig_lines);

  // The loader's choice for x86_64: the first libc6,x86-64 entry, in ld.so.conf order.
  const LdCacheEntry* cuda = gd::ld_cache_lookup(rc.cache, "libcuda.so.1", "x86_64");
  REQUIRE(cuda);
  CHECK(cuda->value == "/usr/local/nvidia/lib64/libcuda.so.1");
  CHECK(cuda->flags == 0x303);
  const LdCacheEntry* nvml = gd::ld_cache_lookup(rc.cache, "libnvidia-ml.so.1", "x86_64");
  REQUIRE(nvml);
  CHECK(nvml->value == "/usr/local/nvidia/lib64/libnvidia-ml.so.1");
  CHECK(gd::ld_cache_lookup(rc.cache, "libcuda.so.1", "aarch64") == nullptr);
  CHECK(gd::ld_cache_lookup(rc.cache, "libfoo.so.1", "x86_64") == nullptr);

  // The stubs folder and the 32-bit copy are in the cache too, after the driver's entry.
  std::vector<std::string> cuda_values;
  for (const LdCacheEntry& e : rc.cache.entries) {
    if (e.key == "libcuda.so.1") {
      cuda_values.push_back(e.value + " " + gd::ld_cache_flags_text(e.flags));
    }
  }
  CHECK(cuda_values == std::vector<std::string>{
                           "/usr/local/nvidia/lib64/libcuda.so.1 libc6,x86-64",
                           "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so.1 libc6,x86-64",
                           "/usr/lib/i386-linux-gnu/libcuda.so.1 ELF",
                       });
}

TEST_CASE("ld.so.cache: the old format (ldconfig -c old)", "[probes][ld_cache][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  RealCache rc;
  REQUIRE(make_real_cache(rc, "old"));
  CHECK(rc.bytes.starts_with("ld.so-1.7.0"));
  CHECK(rc.bytes.find("glibc-ld.so.cache") == std::string::npos);
  CHECK(rc.cache.format == LdCacheFormat::old_only);
  CHECK(rc.cache.generator.empty());  // the old format has no extension section
  REQUIRE_FALSE(rc.ldconfig_lines.empty());
  CHECK(printed(rc.cache) == rc.ldconfig_lines);
  const LdCacheEntry* cuda = gd::ld_cache_lookup(rc.cache, "libcuda.so.1", "x86_64");
  REQUIRE(cuda);
  CHECK(cuda->value == "/usr/local/nvidia/lib64/libcuda.so.1");
}

TEST_CASE("ld.so.cache: old format followed by the new one (ldconfig -c compat)", "[probes][ld_cache][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  RealCache rc;
  REQUIRE(make_real_cache(rc, "compat"));
  CHECK(rc.bytes.starts_with("ld.so-1.7.0"));
  CHECK(rc.bytes.find("glibc-ld.so.cache1.1") != std::string::npos);
  CHECK(rc.cache.format == LdCacheFormat::compat);
  CHECK_FALSE(rc.cache.generator.empty());
  REQUIRE_FALSE(rc.ldconfig_lines.empty());
  CHECK(printed(rc.cache) == rc.ldconfig_lines);
  // The new table inside gives the same entries as a new-only cache of the same tree.
  RealCache fresh;
  REQUIRE(make_real_cache(fresh, "new"));
  CHECK(printed(rc.cache) == printed(fresh.cache));
}

TEST_CASE("ld.so.cache: glibc-hwcaps subfolder entries", "[probes][ld_cache][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  RealCache rc;
  rc.tree.file("/usr/local/nvidia/lib64/glibc-hwcaps/x86-64-v3/libcuda.so.580.159.04",
               gd::test::elf_fixture("libcuda.x86_64.so"));
  REQUIRE(make_real_cache(rc, "new"));
  CHECK(printed(rc.cache) == rc.ldconfig_lines);
  bool saw_hwcaps = false;
  for (const LdCacheEntry& e : rc.cache.entries) {
    if (!e.hwcaps_subdir.empty()) {
      saw_hwcaps = true;
      CHECK(e.hwcaps_subdir == "x86-64-v3");
      CHECK_THAT(e.value, Catch::StartsWith("/usr/local/nvidia/lib64/glibc-hwcaps/x86-64-v3/libcuda.so."));
      CHECK((e.hwcap >> 62) == 1);
    }
  }
  CHECK(saw_hwcaps);
  // A baseline x86-64 CPU gets the plain entry.
  const LdCacheEntry* cuda = gd::ld_cache_lookup(rc.cache, "libcuda.so.1", "x86_64");
  REQUIRE(cuda);
  CHECK(cuda->value == "/usr/local/nvidia/lib64/libcuda.so.1");
}

TEST_CASE("ld.so.cache: this machine's own cache reads like ldconfig -p", "[probes][ld_cache][needs-host-ld-cache]") {
  REQUIRE(gd::test::have("host-ld-cache"));
  std::string own = gd::test::read_whole("/etc/ld.so.cache");
  auto parsed = parse_ld_cache(own);
  REQUIRE(parsed);
  TempTree out;
  std::string cmd = std::string(gd::test::k_ldconfig) + " -p > '" + out.at("/p.txt") + "' 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(printed(*parsed) == entry_lines(gd::test::tree_file(out, "/p.txt")));
}

TEST_CASE("ld.so.cache: damaged files are errors, never crashes", "[probes][ld_cache]") {
  CHECK_FALSE(parse_ld_cache(""));
  CHECK_FALSE(parse_ld_cache("not a cache at all"));
  CHECK_THAT(parse_ld_cache("ELF\x7f").error().reason, Catch::Contains("not an ld.so.cache"));
  CHECK_FALSE(parse_ld_cache("glibc-ld.so.cache1.1"));  // header cut off
}

TEST_CASE("ld.so.cache: real caches cut short or edited are errors, never crashes", "[probes][ld_cache][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  for (const char* format : {"new", "old", "compat"}) {
    RealCache rc;
    REQUIRE(make_real_cache(rc, format));
    // Every prefix of a real cache either parses (the strings happen to be complete) or is an
    // error; none is read past its end (the sanitizer build would catch that).
    for (std::size_t n = 0; n < rc.bytes.size(); ++n) {
      auto cut = parse_ld_cache(std::string_view(rc.bytes).substr(0, n));
      if (cut) {
        CHECK(cut->entries.size() <= rc.cache.entries.size());
      }
    }
    // An entry count far beyond the file.
    std::string huge = rc.bytes;
    std::size_t count_at = std::string_view(format) == "old" ? 12 : std::string_view(format) == "new" ? 20 : 0;
    if (count_at) {
      std::uint32_t big = 0x10000000;
      std::memcpy(huge.data() + count_at, &big, 4);
      CHECK_THAT(parse_ld_cache(huge).error().reason, Catch::Contains("do not fit"));
    }
  }
  // A string offset outside the file.
  RealCache rc;
  REQUIRE(make_real_cache(rc, "new"));
  std::string bad = rc.bytes;
  std::uint32_t far = 0x7fffffff;
  std::memcpy(bad.data() + 48 + 8, &far, 4);  // the first entry's value index
  CHECK_THAT(parse_ld_cache(bad).error().reason, Catch::Contains("outside the string table"));
  // A cache written for a big-endian host is refused, as the loader does.
  std::string big_endian = rc.bytes;
  big_endian[28] = 3;
  CHECK_THAT(parse_ld_cache(big_endian).error().reason, Catch::Contains("big-endian"));
}

TEST_CASE("ld.so.cache: flags as ldconfig -p prints them", "[probes][ld_cache]") {
  CHECK(gd::ld_cache_flags_text(0x0303) == "libc6,x86-64");
  CHECK(gd::ld_cache_flags_text(0x0a03) == "libc6,AArch64");
  CHECK(gd::ld_cache_flags_text(0x0803) == "libc6,x32");
  CHECK(gd::ld_cache_flags_text(0x0003) == "libc6");
  CHECK(gd::ld_cache_flags_text(0x0001) == "ELF");
  CHECK(gd::ld_cache_native_flags("x86_64") == 0x303);
  CHECK(gd::ld_cache_native_flags("aarch64") == 0xa03);
  CHECK(gd::ld_cache_native_flags("riscv64") == 0);
  CHECK(gd::ld_cache_flags_match(0x303, "x86_64"));
  CHECK_FALSE(gd::ld_cache_flags_match(0x0003, "x86_64"));  // an i386 libc6 library
  CHECK_FALSE(gd::ld_cache_flags_match(0x303, "aarch64"));
  CHECK_FALSE(gd::ld_cache_flags_match(0, "riscv64"));
}

TEST_CASE("ld.so.cache: the real H200 host's cache reads like its ldconfig -p", "[probes][ld_cache]") {
  // tests/fixtures/ld.so.cache: verbatim from the real H200 host, with its own ldconfig -p output.
  std::string dir = std::string(GD_SOURCE_DIR) + "/tests/fixtures/ld.so.cache/";
  std::string bytes = gd::test::read_whole(dir + "h200-ubuntu-24.04.ld.so.cache");
  std::string printed_there = gd::test::read_whole(dir + "h200-ubuntu-24.04.ldconfig-p.txt");
  REQUIRE_FALSE(bytes.empty());
  auto parsed = parse_ld_cache(bytes);
  REQUIRE(parsed);
  CHECK(parsed->format == LdCacheFormat::new_only);
  CHECK(parsed->entries.size() == 520);  // "520 libs found in cache"
  CHECK(parsed->generator == "ldconfig (Ubuntu GLIBC 2.39-0ubuntu8.9) stable release version 2.39");
  CHECK(printed(*parsed) == entry_lines(printed_there));
  // observations.md "ldcache": libcuda.so.1 twice, the container's folder first.
  const LdCacheEntry* cuda = gd::ld_cache_lookup(*parsed, "libcuda.so.1", "x86_64");
  REQUIRE(cuda);
  CHECK(cuda->value == "/usr/local/nvidia/lib64/libcuda.so.1");
  const LdCacheEntry* nvml = gd::ld_cache_lookup(*parsed, "libnvidia-ml.so.1", "x86_64");
  REQUIRE(nvml);
  CHECK(nvml->value == "/usr/local/nvidia/lib64/libnvidia-ml.so.1");
  CHECK(gd::ld_cache_lookup(*parsed, "libcudart.so.13", "x86_64")->value ==
        "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13");
}

}  // namespace GD_UNITY_ID
