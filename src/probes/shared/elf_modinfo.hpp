#pragma once
// The .modinfo section of a kernel module (.ko), read from the ELF section headers with a few
// bounded Host::read_range calls instead of reading the whole (often 50-100 MB) file.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// What the ELF header says about where the section headers are.
struct ElfLayout {
  bool is_64 = true;
  bool little_endian = true;
  std::uint64_t section_headers_offset = 0;  ///< e_shoff
  std::uint32_t section_header_size = 0;     ///< e_shentsize
  std::uint32_t section_count = 0;           ///< e_shnum (0: the real count is in section 0)
  std::uint32_t names_section = 0;           ///< e_shstrndx (0xffff: it is in section 0's sh_link)
};

/// One section header, reduced to what locating a section needs.
struct ElfSection {
  std::uint32_t name = 0;  ///< offset into the section-name string table
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
};

/// Parses the ELF identification and header (the first 64 bytes are enough for both classes).
std::optional<ElfLayout> parse_elf_header(std::string_view bytes);

/// Parses `table`, the raw section header table described by `layout` (whole entries only).
std::vector<ElfSection> parse_section_headers(std::string_view table, const ElfLayout& layout);

/// The NUL-terminated name at `offset` of a string table; empty when out of range.
std::string_view string_at(std::string_view table, std::uint64_t offset);

/// The key=value strings of a .modinfo section (include/linux/moduleparam.h __MODULE_INFO:
/// NUL-separated "version=580.159.04", "license=Dual MIT/GPL", "vermagic=6.8.0-45-generic SMP ...").
struct ModInfo {
  std::string version;
  std::string license;
  std::string vermagic;
  std::vector<std::string> firmware;  ///< MODULE_FIRMWARE() entries: "nvidia/580.159.04/gsp_ga10x.bin"
};

ModInfo parse_modinfo(std::string_view section);

/// "open" for the open module's license "Dual MIT/GPL", "proprietary" for "NVIDIA", else empty.
std::string flavor_from_license(std::string_view license);

/// Reads the .modinfo section of the uncompressed module at `path` through `host`. On failure
/// the error says why ("not an ELF file", "no .modinfo section", an errno).
std::expected<ModInfo, std::string> read_modinfo(Host& host, const std::string& path);

/// Whether the module file ends with the kernel's "~Module signature appended~\n" marker
/// (include/uapi/linux/module_signature.h). `size` is the file's size. Nullopt when unreadable.
std::optional<bool> has_module_signature(Host& host, const std::string& path, std::uint64_t size);

}  // namespace gd
