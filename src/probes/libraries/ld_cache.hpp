#pragma once
// /etc/ld.so.cache, the table ldconfig writes and the glibc dynamic loader searches by soname.
// Both on-disk formats are read: the old "ld.so-1.7.0" one (optionally followed by the new one
// hidden in its string table, `ldconfig -c compat`) and the new "glibc-ld.so.cache1.1" one
// (`ldconfig -c new`, the default since glibc 2.32). Layouts: glibc sysdeps/generic/dl-cache.h,
// writer elf/cache.c save_cache(), reader elf/dl-cache.c _dl_load_cache_lookup().

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

enum class LdCacheFormat {
  old_only,   ///< "ld.so-1.7.0" alone (`ldconfig -c old`)
  compat,     ///< old table with the new one after it (`ldconfig -c compat`); the new one is read
  new_only,   ///< "glibc-ld.so.cache1.1" alone (`ldconfig -c new`, the default)
};

std::string_view to_string(LdCacheFormat format);

/// One library in the cache, in file order (sorted by soname, then by preference).
struct LdCacheEntry {
  std::int32_t flags = 0;      ///< FLAG_* of sysdeps/generic/ldconfig.h: ELF type | arch bits
  std::string key;             ///< the soname, e.g. "libcuda.so.1"
  std::string value;           ///< the path the loader opens, e.g. "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
  std::uint64_t hwcap = 0;     ///< new format only; non-zero for glibc-hwcaps subfolder entries
  std::string hwcaps_subdir;   ///< "x86-64-v3" for a glibc-hwcaps entry (extension section), else empty
};

struct LdCache {
  LdCacheFormat format = LdCacheFormat::new_only;
  std::vector<LdCacheEntry> entries;
  std::string generator;  ///< "ldconfig (Ubuntu GLIBC 2.39-0ubuntu8.9) stable release version 2.39", if recorded
};

/// Why a cache was not read.
struct LdCacheError {
  enum class Kind {
    corrupt,       ///< not a cache the loader would use either (it then searches as without one)
    beyond_limits  ///< well-formed, but larger than gpudoctor reads (the loader may still use it)
  };
  Kind kind = Kind::corrupt;
  std::string reason;
};

/// Bounds on what one cache may cost, whatever its header claims. Real caches hold a few hundred
/// to a few thousand entries (520 on the H200 host, 665 on Ubuntu 24.04 with build tools), and
/// their strings take less than the file's size (ldconfig stores a soname as the tail of its
/// path). A crafted 16 MiB file can point 700,000 entries at one 4 KiB string: copied per entry,
/// 5.7 GB.
inline constexpr std::size_t k_ld_cache_max_entries = std::size_t{1} << 18;  // 262,144
inline constexpr std::size_t k_ld_cache_max_string_bytes = std::size_t{32} << 20;
inline constexpr std::size_t k_ld_cache_string_ratio = 4;  // string bytes taken per byte of file

/// Parses the bytes of an ld.so.cache file (little-endian hosts: x86_64, aarch64). Every offset
/// and count is checked against the size, the entry count against k_ld_cache_max_entries, and
/// the bytes of all strings taken against the smaller of k_ld_cache_max_string_bytes and
/// k_ld_cache_string_ratio times the file's size; an error says what is wrong.
std::expected<LdCache, LdCacheError> parse_ld_cache(std::string_view bytes);

/// The flags the loader of `arch` (uname machine) accepts (_dl_cache_check_flags in
/// sysdeps/unix/sysv/linux/<arch>/dl-cache.h); 0 for an architecture gpudoctor does not know.
std::int32_t ld_cache_native_flags(std::string_view arch);

/// Whether the loader of `arch` would use an entry with `flags`.
bool ld_cache_flags_match(std::int32_t flags, std::string_view arch);

/// The flags as `ldconfig -p` prints them: "libc6,x86-64", "libc6,AArch64", "ELF".
std::string ld_cache_flags_text(std::int32_t flags);

/// The first entry for `soname` that the loader of `arch` would use (search_cache in
/// elf/dl-cache.c: the first entry with matching flags, glibc-hwcaps entries left out), or null.
const LdCacheEntry* ld_cache_lookup(const LdCache& cache, std::string_view soname, std::string_view arch);

}  // namespace gd
