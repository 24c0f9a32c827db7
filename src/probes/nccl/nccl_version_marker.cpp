#include "probes/nccl/nccl_version_marker.hpp"

#include <algorithm>

#include "probes/nccl/nccl_version_text.hpp"
#include "probes/shared/elf_modinfo.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_section_table = 1 << 20;  // libnccl has ~40 sections (64 bytes each)
constexpr std::size_t k_max_names_section = 1 << 16;

}  // namespace

std::expected<std::string, std::string> read_nccl_version_marker(Host& host, const std::string& path) {
  auto header = host.read_range(path, 0, 64);
  if (!header) return std::unexpected(unreadable_reason(header.error(), host));
  auto layout = parse_elf_header(*header);
  if (!layout) return std::unexpected(std::string("not an ELF file"));
  const std::uint64_t table_bytes = std::uint64_t{layout->section_count} * layout->section_header_size;
  if (layout->section_count == 0 || table_bytes > k_max_section_table) {
    return std::unexpected(std::string("no section header table gpudoctor reads"));
  }
  auto table = host.read_range(path, layout->section_headers_offset, static_cast<std::size_t>(table_bytes));
  if (!table) return std::unexpected(unreadable_reason(table.error(), host));
  auto sections = parse_section_headers(*table, *layout);
  if (sections.size() != layout->section_count || layout->names_section >= sections.size()) {
    return std::unexpected(std::string("cut section header table"));
  }
  const ElfSection& names_header = sections[layout->names_section];
  if (names_header.size > k_max_names_section) return std::unexpected(std::string("section name table too large"));
  auto names = host.read_range(path, names_header.offset, static_cast<std::size_t>(names_header.size));
  if (!names) return std::unexpected(unreadable_reason(names.error(), host));

  std::uint64_t scanned = 0;
  bool any_rodata = false;
  for (const ElfSection& section : sections) {
    if (!string_at(*names, section.name).starts_with(".rodata")) continue;
    any_rodata = true;
    // Chunks overlap by the longest string sought, so that one split between two is still seen.
    constexpr std::size_t k_overlap = 64;
    for (std::uint64_t at = 0; at < section.size && scanned < k_marker_max_scan_bytes;) {
      std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(k_marker_chunk_bytes, section.size - at));
      auto chunk = host.read_range(path, section.offset + at, want);
      if (!chunk) return std::unexpected(unreadable_reason(chunk.error(), host));
      if (auto release = version_from_marker(*chunk)) return *release;
      if (chunk->size() < want || want <= k_overlap) break;  // the file ends inside the section
      scanned += want;
      at += want - k_overlap;
    }
  }
  if (!any_rodata) return std::unexpected(std::string("no read-only data section"));
  if (scanned >= k_marker_max_scan_bytes) {
    return std::unexpected("no \"NCCL version\" string in the first " + std::to_string(k_marker_max_scan_bytes >> 20) +
                           " MiB of its read-only data");
  }
  return std::unexpected(std::string("no \"NCCL version\" string in its read-only data"));
}

}  // namespace gd
