#include "probes/libraries/ld_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace gd {
namespace {

// sysdeps/generic/dl-cache.h
constexpr std::string_view k_magic_old = "ld.so-1.7.0";                 // CACHEMAGIC
constexpr std::string_view k_magic_new = "glibc-ld.so.cache1.1";        // CACHEMAGIC_NEW CACHE_VERSION
constexpr std::size_t k_old_header_size = 16;   // struct cache_file: magic[11], pad, uint32 nlibs
constexpr std::size_t k_old_entry_size = 12;    // struct file_entry: int32 flags, uint32 key, value
constexpr std::size_t k_new_header_size = 48;   // struct cache_file_new (_Static_assert in dl-cache.h)
constexpr std::size_t k_new_entry_size = 24;    // struct file_entry_new: + uint32 osversion, uint64 hwcap
constexpr std::size_t k_new_align = 8;          // __alignof__ (struct cache_file_new) on 64-bit hosts
constexpr std::uint32_t k_extension_magic = static_cast<std::uint32_t>(-358342284);  // cache_extension_magic
constexpr std::uint32_t k_tag_generator = 0;    // cache_extension_tag_generator
constexpr std::uint32_t k_tag_glibc_hwcaps = 1; // cache_extension_tag_glibc_hwcaps
constexpr std::uint64_t k_hwcap_extension = 1ULL << 62;  // DL_CACHE_HWCAP_EXTENSION
constexpr std::uint64_t k_isa_level_mask = (1U << 10) - 1;  // DL_CACHE_HWCAP_ISA_LEVEL_MASK
constexpr std::uint8_t k_endian_mask = 3;       // cache_file_new_flags_endian_mask
constexpr std::uint8_t k_endian_big = 3;        // cache_file_new_flags_endian_big
constexpr std::uint32_t k_max_extension_sections = 64;  // glibc knows 2; more means garbage
constexpr std::size_t k_max_string = 4096;      // PATH_MAX: longer "strings" are corruption

// sysdeps/generic/ldconfig.h
constexpr std::int32_t k_flag_type_mask = 0x00ff;      // FLAG_TYPE_MASK
constexpr std::int32_t k_flag_required_mask = 0xff00;  // FLAG_REQUIRED_MASK
constexpr std::int32_t k_flag_x8664_lib64 = 0x0300;    // FLAG_X8664_LIB64
constexpr std::int32_t k_flag_aarch64_lib64 = 0x0a00;  // FLAG_AARCH64_LIB64
constexpr std::int32_t k_flag_elf_libc6 = 0x0003;      // FLAG_ELF_LIBC6

std::uint32_t read_u32(std::string_view bytes, std::size_t offset) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

std::uint64_t read_u64(std::string_view bytes, std::size_t offset) {
  return read_u32(bytes, offset) | (static_cast<std::uint64_t>(read_u32(bytes, offset + 4)) << 32);
}

/// The NUL-terminated string at `offset` of `table`, or nullopt when it runs off the end.
std::optional<std::string> string_at(std::string_view table, std::uint64_t offset) {
  if (offset >= table.size()) {
    return std::nullopt;
  }
  std::string_view rest = table.substr(static_cast<std::size_t>(offset));
  std::size_t end = rest.find('\0');
  if (end == std::string_view::npos || end > k_max_string) {
    return std::nullopt;
  }
  return std::string(rest.substr(0, end));
}

using Unexpected = std::unexpected<LdCacheError>;

Unexpected corrupt(std::string reason) { return Unexpected(LdCacheError{LdCacheError::Kind::corrupt, std::move(reason)}); }

/// What the strings of one cache may take in all: entries may share a string in the file (the
/// soname is its path's tail), but each copy costs memory, so a file cannot make more of them
/// than a few times its own size.
class StringBudget {
 public:
  explicit StringBudget(std::size_t file_size)
      : m_left(std::min(k_ld_cache_max_string_bytes, k_ld_cache_string_ratio * file_size)), m_limit(m_left) {}

  /// Takes `size` bytes; false once the budget is spent.
  bool take(std::size_t size) {
    if (size > m_left) return false;
    m_left -= size;
    return true;
  }

  Unexpected exceeded(std::size_t entry) const {
    return Unexpected(LdCacheError{
        LdCacheError::Kind::beyond_limits,
        fmt::format("its strings take more than {} bytes at entry {} (at most {} times the file's size "
                    "is read; a real cache's strings take less than its file)",
                    m_limit, entry, k_ld_cache_string_ratio)});
  }

 private:
  std::size_t m_left;
  std::size_t m_limit;
};

/// The entry count, refused above the cap before anything is read.
std::expected<void, LdCacheError> check_count(std::uint32_t nlibs) {
  if (nlibs > k_ld_cache_max_entries) {
    return Unexpected(LdCacheError{LdCacheError::Kind::beyond_limits,
                                   fmt::format("{} entries (at most {} are read; real caches have a few thousand)", nlibs,
                                               k_ld_cache_max_entries)});
  }
  return {};
}

/// The extension directory of a new-format cache (cache_extension_load in dl-cache.h): the
/// generator string and the glibc-hwcaps subfolder names. Offsets are from the file start.
/// A malformed directory is ignored, as the loader does (it then only loses hwcaps entries).
void read_extensions(std::string_view file, std::uint32_t extension_offset, LdCache& cache,
                     std::vector<std::uint32_t>& hwcaps_names) {
  if (extension_offset == 0 || extension_offset % 4 != 0 || extension_offset > file.size() ||
      file.size() - extension_offset < 8) {
    return;
  }
  if (read_u32(file, extension_offset) != k_extension_magic) {
    return;
  }
  std::uint32_t count = read_u32(file, extension_offset + 4);
  if (count > k_max_extension_sections || (file.size() - extension_offset - 8) / 16 < count) {
    return;
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    std::size_t at = extension_offset + 8 + std::size_t{i} * 16;
    std::uint32_t tag = read_u32(file, at);
    std::uint64_t offset = read_u32(file, at + 8);
    std::uint64_t size = read_u32(file, at + 12);
    if (offset + size > file.size()) {
      return;
    }
    if (tag == k_tag_generator) {
      cache.generator = std::string(file.substr(offset, std::min<std::uint64_t>(size, 256)));
    } else if (tag == k_tag_glibc_hwcaps && size % 4 == 0 && offset % 4 == 0) {
      for (std::uint64_t j = 0; j < size / 4 && j < 1024; ++j) {
        hwcaps_names.push_back(read_u32(file, static_cast<std::size_t>(offset + 4 * j)));
      }
    }
  }
}

/// Reads the new-format table that starts at `base` of `file` (0, or after the old table).
/// String indices are relative to the start of that table (elf/cache.c: "the string table
/// always begins at the beginning of the new cache struct").
std::expected<void, LdCacheError> read_new(std::string_view file, std::size_t base, LdCache& cache) {
  std::string_view table = file.substr(base);
  if (table.size() < k_new_header_size) {
    return corrupt("the new-format header is cut off");
  }
  std::uint32_t nlibs = read_u32(table, 20);
  std::uint8_t flags = static_cast<std::uint8_t>(table[28]);
  std::uint32_t extension_offset = read_u32(table, 32);
  if ((flags & k_endian_mask) == k_endian_big) {
    return corrupt("the cache was written for a big-endian host");
  }
  if ((table.size() - k_new_header_size) / k_new_entry_size < nlibs) {
    return corrupt(fmt::format("{} entries do not fit in {} bytes", nlibs, table.size()));
  }
  if (auto ok = check_count(nlibs); !ok) return ok;
  StringBudget budget(file.size());
  std::vector<std::uint32_t> hwcaps_names;
  read_extensions(file, extension_offset, cache, hwcaps_names);
  cache.entries.reserve(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::size_t at = k_new_header_size + std::size_t{i} * k_new_entry_size;
    LdCacheEntry entry;
    entry.flags = static_cast<std::int32_t>(read_u32(table, at));
    auto key = string_at(table, read_u32(table, at + 4));
    auto value = string_at(table, read_u32(table, at + 8));
    if (!key || !value) {
      return corrupt(fmt::format("entry {} points outside the string table", i));
    }
    if (!budget.take(key->size() + value->size())) return budget.exceeded(i);
    entry.key = std::move(*key);
    entry.value = std::move(*value);
    entry.hwcap = read_u64(table, at + 16);
    // dl_cache_hwcap_extension(): only bit 62 set in the upper half (ISA level bits aside);
    // the low 32 bits index the glibc-hwcaps section, whose values index the file.
    if (((entry.hwcap >> 32) & ~k_isa_level_mask) == (k_hwcap_extension >> 32)) {
      std::uint32_t index = static_cast<std::uint32_t>(entry.hwcap);
      if (index < hwcaps_names.size()) {
        entry.hwcaps_subdir = string_at(file, hwcaps_names[index]).value_or("");
        if (!budget.take(entry.hwcaps_subdir.size())) return budget.exceeded(i);
      }
    }
    cache.entries.push_back(std::move(entry));
  }
  return {};
}

/// Reads the old-format table at the start of `file`; strings are relative to the end of its
/// entries (`&cache->libs[cache->nlibs]` in _dl_load_cache_lookup).
std::expected<void, LdCacheError> read_old(std::string_view file, std::uint32_t nlibs, LdCache& cache) {
  StringBudget budget(file.size());
  std::string_view strings = file.substr(k_old_header_size + std::size_t{nlibs} * k_old_entry_size);
  cache.entries.reserve(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::size_t at = k_old_header_size + std::size_t{i} * k_old_entry_size;
    LdCacheEntry entry;
    entry.flags = static_cast<std::int32_t>(read_u32(file, at));
    auto key = string_at(strings, read_u32(file, at + 4));
    auto value = string_at(strings, read_u32(file, at + 8));
    if (!key || !value) {
      return corrupt(fmt::format("entry {} points outside the string table", i));
    }
    if (!budget.take(key->size() + value->size())) return budget.exceeded(i);
    entry.key = std::move(*key);
    entry.value = std::move(*value);
    // ldconfig -c compat repeats the last entry to keep the new table 8-byte aligned.
    if (i > 0 && entry.key == cache.entries.back().key && entry.value == cache.entries.back().value &&
        entry.flags == cache.entries.back().flags) {
      continue;
    }
    cache.entries.push_back(std::move(entry));
  }
  return {};
}

}  // namespace

std::string_view to_string(LdCacheFormat format) {
  switch (format) {
    case LdCacheFormat::old_only: return "old";
    case LdCacheFormat::compat: return "compat";
    case LdCacheFormat::new_only: return "new";
  }
  return "new";
}

std::expected<LdCache, LdCacheError> parse_ld_cache(std::string_view bytes) {
  LdCache cache;
  if (bytes.starts_with(k_magic_new)) {
    cache.format = LdCacheFormat::new_only;
    auto ok = read_new(bytes, 0, cache);
    if (!ok) {
      return std::unexpected(std::move(ok.error()));
    }
    return cache;
  }
  if (!bytes.starts_with(k_magic_old)) {
    return corrupt("not an ld.so.cache file (no ld.so-1.7.0 or glibc-ld.so.cache1.1 magic)");
  }
  if (bytes.size() < k_old_header_size) {
    return corrupt("the old-format header is cut off");
  }
  std::uint32_t nlibs = read_u32(bytes, 12);
  if ((bytes.size() - k_old_header_size) / k_old_entry_size < nlibs) {
    return corrupt(fmt::format("{} entries do not fit in {} bytes", nlibs, bytes.size()));
  }
  // The new table, when present, starts at the next aligned offset after the old entries
  // (ALIGN_CACHE in _dl_load_cache_lookup); the loader then uses it and ignores the old one.
  std::size_t old_end = k_old_header_size + std::size_t{nlibs} * k_old_entry_size;
  std::size_t new_at = (old_end + k_new_align - 1) / k_new_align * k_new_align;
  if (new_at <= bytes.size() && bytes.substr(new_at).starts_with(k_magic_new)) {
    cache.format = LdCacheFormat::compat;
    auto ok = read_new(bytes, new_at, cache);
    if (!ok) {
      return std::unexpected(std::move(ok.error()));
    }
    return cache;
  }
  cache.format = LdCacheFormat::old_only;
  if (auto counted = check_count(nlibs); !counted) return std::unexpected(counted.error());
  auto ok = read_old(bytes, nlibs, cache);
  if (!ok) {
    return std::unexpected(ok.error());
  }
  return cache;
}

std::int32_t ld_cache_native_flags(std::string_view arch) {
  if (arch == "x86_64") {
    return k_flag_x8664_lib64 | k_flag_elf_libc6;  // 0x303, sysdeps/x86_64/dl-cache.h
  }
  if (arch == "aarch64") {
    return k_flag_aarch64_lib64 | k_flag_elf_libc6;  // sysdeps/unix/sysv/linux/aarch64/dl-cache.h
  }
  return 0;
}

bool ld_cache_flags_match(std::int32_t flags, std::string_view arch) {
  std::int32_t native = ld_cache_native_flags(arch);
  return native != 0 && flags == native;
}

std::string ld_cache_flags_text(std::int32_t flags) {
  // flag_descr and print_entry in elf/cache.c
  constexpr std::array<std::string_view, 4> k_types = {"libc4", "ELF", "libc5", "libc6"};
  std::int32_t type = flags & k_flag_type_mask;
  std::string text = type < 4 ? std::string(k_types[static_cast<std::size_t>(type)]) : "unknown";
  switch (flags & k_flag_required_mask) {
    case 0: break;
    case k_flag_x8664_lib64: text += ",x86-64"; break;
    case 0x0800: text += ",x32"; break;  // FLAG_X8664_LIBX32
    case k_flag_aarch64_lib64: text += ",AArch64"; break;
    default: text += fmt::format(",{}", flags & k_flag_required_mask); break;
  }
  return text;
}

const LdCacheEntry* ld_cache_lookup(const LdCache& cache, std::string_view soname, std::string_view arch) {
  for (const LdCacheEntry& entry : cache.entries) {
    // glibc-hwcaps entries (hwcap != 0) need the CPU's ISA level; legacy hwcap entries are
    // skipped since glibc 2.37. Either way the plain entry is what a baseline CPU gets.
    if (entry.key == soname && entry.hwcap == 0 && ld_cache_flags_match(entry.flags, arch)) {
      return &entry;
    }
  }
  return nullptr;
}

}  // namespace gd
