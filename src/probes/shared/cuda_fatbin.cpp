#include "probes/shared/cuda_fatbin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <expected>
#include <map>
#include <set>

#include "probes/shared/elf_modinfo.hpp"
#include "probes/probe.hpp"

namespace gd {
namespace {

constexpr std::string_view k_fatbin_section = ".nv_fatbin";
constexpr std::string_view k_relocatable_section = "__nv_relfatbin";  // fatbinary_section.h, -rdc code

// Bounds on the ELF tables (a CUDA library has ~40 sections and a name table of a few hundred
// bytes); the same bounds as the .modinfo reader.
constexpr std::uint64_t k_max_section_table = 1024 * 1024;
constexpr std::uint64_t k_max_names_section = 1024 * 1024;
constexpr std::uint32_t k_shn_xindex = 0xffff;  // e_shstrndx escape (gABI extended section indices)
constexpr std::uint32_t k_sht_nobits = 8;       // a section that takes no room in the file
constexpr std::uint16_t k_fatbin_version = 1;   // fatbinary.h FATBIN_VERSION

std::uint64_t read_le(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

std::uint32_t read_u32(std::string_view bytes, std::size_t at, bool little_endian) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    std::uint32_t byte = static_cast<unsigned char>(bytes[at + i]);
    value |= little_endian ? byte << (8 * i) : byte << (8 * (3 - i));
  }
  return value;
}

bool all_zero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == '\0'; });
}

std::string hex(std::uint64_t value) { return fmt::format("{:#x}", value); }

struct Failure {
  FatbinStatus status;
  std::string reason;
};

Failure corrupt(std::string reason) { return {FatbinStatus::corrupt, std::move(reason)}; }

/// One fat binary section with content in the file.
struct FoundSection {
  std::string_view name;
  ElfSection where;
};

/// Where the fat binaries are in the file: .nv_fatbin first, then __nv_relfatbin.
struct FatbinSections {
  std::vector<FoundSection> with_content;
  bool stripped = false;  // a section is named but takes no room (SHT_NOBITS: a debug-only copy)
};

/// Reads the ELF header, the section header table and the section names: three reads.
std::expected<FatbinSections, Failure> find_sections(Host& host, const std::string& path, FatbinScan& scan) {
  auto count_read = [&scan](const IoResult<std::string>& got) {
    ++scan.reads;
    scan.bytes_read += got ? got->size() : 0;
  };
  auto header = host.read_range(path, 0, 64);
  count_read(header);
  if (!header) {
    return std::unexpected(Failure{FatbinStatus::unreadable, unreadable_reason(header.error(), host)});
  }
  auto layout = parse_elf_header(*header);
  if (!layout) {
    return std::unexpected(Failure{FatbinStatus::not_elf, "not an ELF file"});
  }
  auto st = host.stat(path);
  if (!st) {
    return std::unexpected(Failure{FatbinStatus::unreadable, unreadable_reason(st.error(), host)});
  }
  const std::uint64_t file_size = st->size;
  const std::uint64_t entry = layout->section_header_size;
  std::uint64_t count = layout->section_count;
  std::uint64_t names_index = layout->names_section;
  if (count == 0 || names_index == k_shn_xindex) {
    // Extended numbering: the real values live in section header 0.
    auto first = host.read_range(path, layout->section_headers_offset, static_cast<std::size_t>(entry));
    count_read(first);
    if (!first) {
      return std::unexpected(Failure{FatbinStatus::unreadable, unreadable_reason(first.error(), host)});
    }
    auto zero = parse_section_headers(*first, *layout);
    if (zero.empty()) {
      return std::unexpected(corrupt("truncated section header table"));
    }
    count = count == 0 ? zero[0].size : count;
    names_index = names_index == k_shn_xindex ? zero[0].link : names_index;
  }
  if (count == 0 || count * entry > k_max_section_table) {
    return std::unexpected(corrupt("section header table missing or too large"));
  }
  auto table = host.read_range(path, layout->section_headers_offset, static_cast<std::size_t>(count * entry));
  count_read(table);
  if (!table) {
    return std::unexpected(Failure{FatbinStatus::unreadable, unreadable_reason(table.error(), host)});
  }
  auto sections = parse_section_headers(*table, *layout);
  if (sections.size() != count || names_index >= sections.size()) {
    return std::unexpected(corrupt("truncated section header table"));
  }
  const ElfSection& names_header = sections[static_cast<std::size_t>(names_index)];
  if (names_header.size > k_max_names_section) {
    return std::unexpected(corrupt("section name table too large"));
  }
  auto names = host.read_range(path, names_header.offset, static_cast<std::size_t>(names_header.size));
  count_read(names);
  if (!names) {
    return std::unexpected(Failure{FatbinStatus::unreadable, unreadable_reason(names.error(), host)});
  }
  FatbinSections found;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    std::string_view name = string_at(*names, sections[i].name);
    if (name != k_fatbin_section && name != k_relocatable_section) {
      continue;
    }
    // sh_type follows sh_name in both classes; a stripped debug copy keeps the header as NOBITS.
    bool nobits = read_u32(*table, i * entry + 4, layout->little_endian) == k_sht_nobits;
    const ElfSection& section = sections[i];
    if (!nobits && (section.size > file_size || section.offset > file_size - section.size)) {
      return std::unexpected(corrupt(fmt::format("{} section ({} bytes at {}) runs past the end of the file ({} bytes)",
                                                 name, section.size, hex(section.offset), file_size)));
    }
    if (nobits) {
      found.stripped = true;
    } else {
      // The constant, not `name`: that one points into the name table read here.
      found.with_content.push_back({name == k_fatbin_section ? k_fatbin_section : k_relocatable_section, section});
    }
  }
  auto linked_first = [](const FoundSection& a, const FoundSection& b) {
    return a.name == k_fatbin_section && b.name != k_fatbin_section;
  };
  std::stable_sort(found.with_content.begin(), found.with_content.end(), linked_first);
  return found;
}

/// Hands out header bytes of one section, reading `window` bytes at a time so that headers
/// close together cost one read, and a header far behind a long payload costs one of its own.
class WindowReader {
 public:
  WindowReader(Host& host, const std::string& path, std::string_view section, std::uint64_t end, std::size_t window,
               FatbinScan& scan)
      : m_host(host), m_path(path), m_section(section), m_end(end), m_window(window), m_scan(scan) {}

  /// `length` bytes at file offset `at`; the caller has checked that at + length <= end.
  std::expected<std::string_view, Failure> view(std::uint64_t at, std::size_t length) {
    if (at >= m_at && at - m_at <= m_buffer.size() && length <= m_buffer.size() - (at - m_at)) {
      return std::string_view(m_buffer).substr(static_cast<std::size_t>(at - m_at), length);
    }
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(m_window, m_end - at));
    want = std::max(want, length);
    auto got = m_host.read_range(m_path, at, want);
    ++m_scan.reads;
    if (!got) {
      return std::unexpected(Failure{FatbinStatus::unreadable, unreadable_reason(got.error(), m_host)});
    }
    m_scan.bytes_read += got->size();
    if (got->size() < length) {
      return std::unexpected(
          corrupt(fmt::format("file cut short at {} inside the {} section", hex(at + got->size()), m_section)));
    }
    m_buffer = std::move(*got);
    m_at = at;
    return std::string_view(m_buffer).substr(0, length);
  }

 private:
  Host& m_host;
  const std::string& m_path;
  std::string_view m_section;
  std::uint64_t m_end;
  std::size_t m_window;
  FatbinScan& m_scan;
  std::string m_buffer;
  std::uint64_t m_at = 0;
};

struct ArchSets {
  std::set<FatbinArch> sass;
  std::set<FatbinArch> ptx;
};

/// What every container read so far holds: per architecture, in how many containers.
struct ArchCounts {
  std::map<FatbinArch, std::uint32_t> sass;
  std::map<FatbinArch, std::uint32_t> ptx;
  std::uint32_t with_code = 0;

  /// Adds one container's architectures (also one a walk stopped inside: what came before counts).
  void add(const ArchSets& container) {
    for (const FatbinArch& arch : container.sass) ++sass[arch];
    for (const FatbinArch& arch : container.ptx) ++ptx[arch];
    if (!container.sass.empty() || !container.ptx.empty()) ++with_code;
  }
};

std::vector<FatbinArchCount> as_counts(const std::map<FatbinArch, std::uint32_t>& counts) {
  std::vector<FatbinArchCount> out;
  for (const auto& [arch, containers] : counts) out.push_back({arch, containers});
  return out;
}

/// Walks the entries of the container whose entries span [at, end).
std::expected<void, Failure> walk_entries(WindowReader& reader, std::uint64_t at, std::uint64_t end,
                                          const FatbinScanLimits& limits, FatbinScan& scan, ArchSets& archs) {
  while (at < end) {
    if (scan.entries >= limits.max_entries) {
      return std::unexpected(corrupt(fmt::format("more than {} fat binary entries", limits.max_entries)));
    }
    if (end - at < k_fatbin_entry_header_size) {
      return std::unexpected(corrupt(fmt::format("entry header at {} cut short by its container", hex(at))));
    }
    auto bytes = reader.view(at, k_fatbin_entry_header_size);
    if (!bytes) {
      return std::unexpected(bytes.error());
    }
    FatbinEntryHeader entry = *parse_fatbin_entry_header(*bytes);
    if (entry.header_size < k_fatbin_entry_header_size || entry.header_size > end - at) {
      return std::unexpected(corrupt(fmt::format("entry at {} has a header size of {}", hex(at), entry.header_size)));
    }
    if (entry.payload_size > end - at - entry.header_size) {
      return std::unexpected(corrupt(fmt::format("entry at {} ({} bytes) runs past its container", hex(at),
                                                 entry.payload_size)));
    }
    ++scan.entries;
    scan.compressed = scan.compressed || (entry.flags & (k_fatbin_flag_lz4 | k_fatbin_flag_zstd)) != 0;
    if (entry.kind == k_fatbin_kind_elf) {
      archs.sass.insert(fatbin_entry_arch(entry));
    } else if (entry.kind == k_fatbin_kind_ptx) {
      archs.ptx.insert(fatbin_entry_arch(entry));
    } else {
      ++scan.other_entries;
    }
    at += entry.header_size + entry.payload_size;  // header_size >= 64: always moves on
  }
  return {};
}

/// Walks the containers of the section [begin, end).
std::expected<void, Failure> walk_section(WindowReader& reader, std::uint64_t begin, std::uint64_t end,
                                          const FatbinScanLimits& limits, FatbinScan& scan, ArchCounts& archs) {
  std::uint64_t at = begin;
  std::uint64_t padding = 0;
  while (at < end) {
    const std::uint64_t remaining = end - at;
    auto head = reader.view(at, static_cast<std::size_t>(std::min<std::uint64_t>(remaining, 8)));
    if (!head) {
      return std::unexpected(head.error());
    }
    // Containers are 8-byte aligned; a linker may fill the gap between two with zeros.
    if (all_zero(*head)) {
      padding += head->size();
      if (padding > limits.max_padding) {
        return std::unexpected(corrupt(fmt::format("more than {} zero bytes at {} between fat binaries",
                                                   limits.max_padding, hex(at - padding + head->size()))));
      }
      at += head->size();
      continue;
    }
    padding = 0;
    if (scan.containers >= limits.max_containers) {
      return std::unexpected(corrupt(fmt::format("more than {} fat binary containers", limits.max_containers)));
    }
    if (remaining < k_fatbin_container_header_size) {
      return std::unexpected(corrupt(fmt::format("fat binary header at {} cut short by the section end", hex(at))));
    }
    auto bytes = reader.view(at, k_fatbin_container_header_size);
    if (!bytes) {
      return std::unexpected(bytes.error());
    }
    FatbinContainerHeader container = *parse_fatbin_container_header(*bytes);
    if (container.magic != k_fatbin_magic) {
      return std::unexpected(corrupt(fmt::format("no fat binary at {} (magic {:#010x})", hex(at), container.magic)));
    }
    if (container.version != k_fatbin_version) {
      return std::unexpected(corrupt(fmt::format("fat binary at {} has version {}", hex(at), container.version)));
    }
    if (container.header_size < k_fatbin_container_header_size || container.header_size > remaining ||
        container.entries_size > remaining - container.header_size) {
      return std::unexpected(corrupt(fmt::format("fat binary at {} (header {} bytes, {} bytes of entries) runs past "
                                                 "the section end",
                                                 hex(at), container.header_size, container.entries_size)));
    }
    ++scan.containers;
    const std::uint64_t entries_at = at + container.header_size;
    const std::uint64_t container_end = entries_at + container.entries_size;
    ArchSets container_archs;
    auto walked = walk_entries(reader, entries_at, container_end, limits, scan, container_archs);
    archs.add(container_archs);
    if (!walked) {
      return walked;
    }
    at = container_end;
  }
  return {};
}

}  // namespace

std::optional<FatbinContainerHeader> parse_fatbin_container_header(std::string_view bytes) {
  if (bytes.size() < k_fatbin_container_header_size) {
    return std::nullopt;
  }
  FatbinContainerHeader header;
  header.magic = static_cast<std::uint32_t>(read_le(bytes, 0, 4));
  header.version = static_cast<std::uint16_t>(read_le(bytes, 4, 2));
  header.header_size = static_cast<std::uint16_t>(read_le(bytes, 6, 2));
  header.entries_size = read_le(bytes, 8, 8);
  return header;
}

std::optional<FatbinEntryHeader> parse_fatbin_entry_header(std::string_view bytes) {
  if (bytes.size() < k_fatbin_entry_header_size) {
    return std::nullopt;
  }
  FatbinEntryHeader entry;
  entry.kind = static_cast<std::uint16_t>(read_le(bytes, 0x00, 2));
  entry.header_size = static_cast<std::uint32_t>(read_le(bytes, 0x04, 4));
  entry.payload_size = read_le(bytes, 0x08, 8);
  entry.arch = static_cast<std::uint32_t>(read_le(bytes, 0x1c, 4));
  entry.flags = read_le(bytes, 0x28, 8);
  return entry;
}

FatbinArch fatbin_entry_arch(const FatbinEntryHeader& entry) {
  FatbinArch arch{entry.arch, ArchVariant::plain};
  if (entry.flags & k_fatbin_flag_arch_specific) {
    arch.variant = ArchVariant::arch_specific;
  } else if (entry.flags & k_fatbin_flag_family_specific) {
    arch.variant = ArchVariant::family_specific;
  }
  return arch;
}

std::string_view to_string(FatbinStatus status) {
  switch (status) {
    case FatbinStatus::ok:
      return "ok";
    case FatbinStatus::not_elf:
      return "not_elf";
    case FatbinStatus::no_fatbin:
      return "no_fatbin";
    case FatbinStatus::unreadable:
      return "unreadable";
    case FatbinStatus::corrupt:
      return "corrupt";
  }
  return "unknown";
}

FatbinScan scan_fat_binaries(Host& host, const std::string& path, const FatbinScanLimits& limits) {
  FatbinScan scan;
  auto fail = [&scan](const Failure& failure) {
    scan.status = failure.status;
    scan.error = failure.reason;
  };
  auto found = find_sections(host, path, scan);
  if (!found) {
    fail(found.error());
    return scan;
  }
  if (found->with_content.empty()) {
    fail({FatbinStatus::no_fatbin, found->stripped ? "fat binary section has no content (a stripped copy)"
                                                   : "no .nv_fatbin or __nv_relfatbin section"});
    return scan;
  }
  const std::size_t window = std::max<std::size_t>(limits.read_window, k_fatbin_entry_header_size);
  ArchCounts archs;
  for (const FoundSection& section : found->with_content) {
    scan.sections.emplace_back(section.name);
    const std::uint64_t end = section.where.offset + section.where.size;  // within the file: checked above
    WindowReader reader(host, path, section.name, end, window, scan);
    auto walked = walk_section(reader, section.where.offset, end, limits, scan, archs);
    if (!walked) {
      fail(walked.error());
      break;
    }
  }
  scan.sass_containers = as_counts(archs.sass);
  scan.ptx_containers = as_counts(archs.ptx);
  for (const FatbinArchCount& count : scan.sass_containers) scan.sass.push_back(count.arch);
  for (const FatbinArchCount& count : scan.ptx_containers) scan.ptx.push_back(count.arch);
  scan.containers_with_code = archs.with_code;
  return scan;
}

std::string fatbin_arch_name(std::string_view prefix, const FatbinArch& arch) {
  std::string_view suffix = arch.variant == ArchVariant::arch_specific     ? "a"
                            : arch.variant == ArchVariant::family_specific ? "f"
                                                                           : "";
  return fmt::format("{}_{}{}", prefix, arch.number, suffix);
}

std::vector<std::string> sass_arch_names(const FatbinScan& scan) {
  std::vector<std::string> names;
  for (const FatbinArch& arch : scan.sass) {
    names.push_back(fatbin_arch_name("sm", arch));
  }
  return names;
}

std::vector<std::string> ptx_arch_names(const FatbinScan& scan) {
  std::vector<std::string> names;
  for (const FatbinArch& arch : scan.ptx) {
    names.push_back(fatbin_arch_name("compute", arch));
  }
  return names;
}

}  // namespace gd
