// The bounds of the ld.so.cache reader (issue 24 item 6): a header may claim any entry count
// and any string offsets; what the reader takes is bounded by the file's size and by caps, and
// a file past them is a fact saying so, never gigabytes.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ldconfig_tree.hpp"
#include "core/fact_key.hpp"
#include "probes/libraries/ld_cache.hpp"
#include "probes/libraries/libraries.hpp"
#include "sys/real_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::LdCacheError;
using gd::parse_ld_cache;
using gd::test::TempTree;

namespace {

void put_u32(std::string& out, std::size_t at, std::uint32_t v) { std::memcpy(out.data() + at, &v, 4); }

struct CraftedEntry {
  std::uint32_t key;    ///< offset of the key in the string table
  std::uint32_t value;  ///< offset of the value
};

/// A glibc-ld.so.cache1.1 file (sysdeps/generic/dl-cache.h): the 48-byte header, `nlibs`
/// 24-byte entries (flags 0x303), then `strings`; offsets are from the file's start, as in the
/// new format. With `entries` shorter than `nlibs`, the rest repeat the last one.
std::string new_cache(std::uint32_t nlibs, const std::string& strings, std::vector<CraftedEntry> entries) {
  std::size_t string_at = 48 + std::size_t{nlibs} * 24;
  std::string out(string_at, '\0');
  std::memcpy(out.data(), "glibc-ld.so.cache1.1", 20);
  put_u32(out, 20, nlibs);
  put_u32(out, 24, static_cast<std::uint32_t>(strings.size()));
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const CraftedEntry& e = entries[std::min<std::size_t>(i, entries.size() - 1)];
    std::size_t at = 48 + std::size_t{i} * 24;
    put_u32(out, at, 0x0303);
    put_u32(out, at + 4, static_cast<std::uint32_t>(string_at + e.key));
    put_u32(out, at + 8, static_cast<std::uint32_t>(string_at + e.value));
  }
  return out + strings;
}

/// An ld.so-1.7.0 file: 16-byte header, `nlibs` 12-byte entries, strings relative to their end.
std::string old_cache(std::uint32_t nlibs, const std::string& strings, CraftedEntry entry) {
  std::string out(16 + std::size_t{nlibs} * 12, '\0');
  std::memcpy(out.data(), "ld.so-1.7.0", 11);
  put_u32(out, 12, nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::size_t at = 16 + std::size_t{i} * 12;
    put_u32(out, at, 0x0303);
    put_u32(out, at + 4, entry.key);
    put_u32(out, at + 8, entry.value);
  }
  return out + strings;
}

/// One path of 4,095 bytes ending in "/libcuda.so.1", NUL-terminated; its soname is its tail.
std::string long_path() {
  std::string path = "/usr/lib/x86_64-linux-gnu/" + std::string(4095 - 26 - 13, 'a') + "/libcuda.so.1";
  REQUIRE(path.size() == 4095);
  return path + '\0';
}

}  // namespace

TEST_CASE("ld.so.cache bounds: entries sharing one long string cost the file a few times over, not more",
          "[probes][ld_cache][bounds]") {
  std::string strings = long_path();
  CraftedEntry e{static_cast<std::uint32_t>(strings.size() - 1 - 12), 0};
  // 2,000 entries on one 4 KiB path: a 52 KB file asking for 16 MB of copies.
  auto cache = parse_ld_cache(new_cache(2000, strings, {e}));
  REQUIRE_FALSE(cache);
  CHECK(cache.error().kind == LdCacheError::Kind::beyond_limits);
  CHECK_THAT(cache.error().reason, Catch::Contains("strings take more than"));
  // The old format is bounded the same way.
  auto old = parse_ld_cache(old_cache(2000, strings, e));
  REQUIRE_FALSE(old);
  CHECK(old.error().kind == LdCacheError::Kind::beyond_limits);
  // Four such entries take 16,428 bytes of a 4,240-byte file, within 4 times its size: read.
  auto few = parse_ld_cache(new_cache(4, strings, {e}));
  REQUIRE(few);
  CHECK(few->entries.size() == 4);
  CHECK(few->entries[3].key == "libcuda.so.1");
  CHECK(few->entries[3].value.size() == 4095);
  // Five take 20,535 bytes of 4,264: more than 4 times.
  CHECK_FALSE(parse_ld_cache(new_cache(5, strings, {e})));
}

TEST_CASE("ld.so.cache bounds: an entry count past the cap is refused before anything is read",
          "[probes][ld_cache][bounds]") {
  std::string strings = std::string("libz.so.1") + '\0';
  auto over = static_cast<std::uint32_t>(gd::k_ld_cache_max_entries + 1);
  auto cache = parse_ld_cache(new_cache(over, strings, {{0, 0}}));
  REQUIRE_FALSE(cache);
  CHECK(cache.error().kind == LdCacheError::Kind::beyond_limits);
  CHECK_THAT(cache.error().reason, Catch::Contains(std::to_string(over) + " entries (at most "));
  auto old = parse_ld_cache(old_cache(over, strings, {0, 0}));
  REQUIRE_FALSE(old);
  CHECK(old.error().kind == LdCacheError::Kind::beyond_limits);
  // At the cap, short strings: read (262,144 entries, 10 bytes each: within the budget).
  auto at_cap = parse_ld_cache(new_cache(static_cast<std::uint32_t>(gd::k_ld_cache_max_entries), strings, {{0, 0}}));
  REQUIRE(at_cap);
  CHECK(at_cap->entries.size() == gd::k_ld_cache_max_entries);
  // A count beyond the file is corruption (the loader refuses it too), not a limit.
  std::string cut = new_cache(100, strings, {{0, 0}});
  put_u32(cut, 20, 0x10000000);
  auto corrupt = parse_ld_cache(cut);
  REQUIRE_FALSE(corrupt);
  CHECK(corrupt.error().kind == LdCacheError::Kind::corrupt);
}

TEST_CASE("ld.so.cache bounds: the real H200 cache is far inside every bound", "[probes][ld_cache][bounds]") {
  std::string bytes = gd::test::read_whole(std::string(GD_SOURCE_DIR) + "/tests/fixtures/ld.so.cache/h200-ubuntu-24.04.ld.so.cache");
  REQUIRE_FALSE(bytes.empty());
  auto cache = parse_ld_cache(bytes);
  REQUIRE(cache);
  std::size_t taken = 0;
  for (const auto& e : cache->entries) taken += e.key.size() + e.value.size() + e.hwcaps_subdir.size();
  // ldconfig's tail merging: the strings of 520 entries take less than the file itself.
  CHECK(taken < bytes.size());
  CHECK(cache->entries.size() * 100 < gd::k_ld_cache_max_entries);
}

TEST_CASE("ld.so.cache bounds: the probe says a crafted cache is beyond what it reads", "[probes][libraries][bounds]") {
  TempTree tree;
  std::string strings = long_path();
  tree.file("/etc/ld.so.cache", new_cache(4000, strings, {{static_cast<std::uint32_t>(strings.size() - 1 - 12), 0}}));
  gd::FactSet facts;
  facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  facts.set_absent("env.ld_library_path"_fact, "env:LD_LIBRARY_PATH");
  facts.set_absent("env.ld_preload"_fact, "env:LD_PRELOAD");
  gd::RealHost host(tree.root(), {});
  gd::probe_libraries(host, gd::ProbeOptions{}, facts);
  for (gd::FactName name : {"lib.ldcache.readable"_fact, "lib.ldcache.entries"_fact, "lib.libcuda.resolved_via"_fact}) {
    const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
    REQUIRE(fact);
    INFO(name.view());
    CHECK(fact->state == gd::FactState::unknown);
    CHECK_THAT(fact->reason, Catch::Contains("larger than gpudoctor reads"));
  }
}

TEST_CASE("ld.so.cache bounds: many libcuda entries are listed up to a bound", "[probes][libraries][bounds]") {
  // 100 libcuda.so.1 entries, each in a folder of its own: within the reader's bounds.
  std::string strings;
  std::vector<CraftedEntry> entries;
  for (int i = 0; i < 100; ++i) {
    std::string path = "/opt/d" + std::to_string(i) + "/libcuda.so.1";
    auto at = static_cast<std::uint32_t>(strings.size());
    strings += path + '\0';
    entries.push_back({static_cast<std::uint32_t>(at + path.size() - 12), at});
  }
  TempTree tree;
  tree.file("/etc/ld.so.cache", new_cache(100, strings, entries));
  gd::FactSet facts;
  facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  facts.set_absent("env.ld_library_path"_fact, "env:LD_LIBRARY_PATH");
  facts.set_absent("env.ld_preload"_fact, "env:LD_PRELOAD");
  gd::RealHost host(tree.root(), {});
  gd::probe_libraries(host, gd::ProbeOptions{}, facts);
  const gd::Fact* listed = facts.find("lib.ldcache.entries"_fact);
  REQUIRE(listed);
  REQUIRE(listed->state == gd::FactState::present);
  const auto& list = std::get<std::vector<std::string>>(listed->value);
  REQUIRE(list.size() == 65);
  CHECK(list.front() == "libcuda.so.1 (libc6,x86-64) => /opt/d0/libcuda.so.1");
  CHECK(list.back() == "(36 more entries for these libraries not listed)");
}

}  // namespace GD_UNITY_ID
