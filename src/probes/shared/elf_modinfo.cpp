#include "probes/shared/elf_modinfo.hpp"

namespace gd {
namespace {

// Bounds on what a module file may make us read (the nvidia.ko of 580 has ~60 sections and a
// .modinfo of a few KB; these leave room for any real module and stop a corrupt one).
constexpr std::size_t k_max_section_table = 1024 * 1024;
constexpr std::size_t k_max_names_section = 1024 * 1024;
constexpr std::size_t k_max_modinfo = 256 * 1024;
constexpr std::string_view k_signature_marker = "~Module signature appended~\n";

constexpr std::uint32_t k_shn_xindex = 0xffff;  // e_shstrndx escape (ELF gABI, "Extended Section Indices")

std::uint64_t read_uint(std::string_view bytes, std::size_t at, std::size_t width, bool little_endian) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    std::uint64_t byte = static_cast<unsigned char>(bytes[at + i]);
    value |= little_endian ? byte << (8 * i) : byte << (8 * (width - 1 - i));
  }
  return value;
}

}  // namespace

std::optional<ElfLayout> parse_elf_header(std::string_view bytes) {
  // ELF gABI: e_ident[0..3] = "\x7fELF", [4] EI_CLASS (1 = 32-bit, 2 = 64-bit), [5] EI_DATA
  // (1 = little endian, 2 = big endian). Header fields follow at class-dependent offsets.
  if (bytes.size() < 52 || bytes.substr(0, 4) != std::string_view("\x7f"
                                                                  "ELF",
                                                                  4)) {
    return std::nullopt;
  }
  ElfLayout layout;
  unsigned char elf_class = static_cast<unsigned char>(bytes[4]);
  unsigned char data = static_cast<unsigned char>(bytes[5]);
  if ((elf_class != 1 && elf_class != 2) || (data != 1 && data != 2)) {
    return std::nullopt;
  }
  layout.is_64 = elf_class == 2;
  layout.little_endian = data == 1;
  if (layout.is_64) {
    if (bytes.size() < 64) {
      return std::nullopt;
    }
    layout.section_headers_offset = read_uint(bytes, 0x28, 8, layout.little_endian);
    layout.section_header_size = static_cast<std::uint32_t>(read_uint(bytes, 0x3a, 2, layout.little_endian));
    layout.section_count = static_cast<std::uint32_t>(read_uint(bytes, 0x3c, 2, layout.little_endian));
    layout.names_section = static_cast<std::uint32_t>(read_uint(bytes, 0x3e, 2, layout.little_endian));
  } else {
    layout.section_headers_offset = read_uint(bytes, 0x20, 4, layout.little_endian);
    layout.section_header_size = static_cast<std::uint32_t>(read_uint(bytes, 0x2e, 2, layout.little_endian));
    layout.section_count = static_cast<std::uint32_t>(read_uint(bytes, 0x30, 2, layout.little_endian));
    layout.names_section = static_cast<std::uint32_t>(read_uint(bytes, 0x32, 2, layout.little_endian));
  }
  std::uint32_t minimum = layout.is_64 ? 64 : 40;  // sizeof(Elf64_Shdr), sizeof(Elf32_Shdr)
  if (layout.section_header_size < minimum || layout.section_headers_offset == 0) {
    return std::nullopt;
  }
  return layout;
}

std::vector<ElfSection> parse_section_headers(std::string_view table, const ElfLayout& layout) {
  std::vector<ElfSection> out;
  const std::size_t entry = layout.section_header_size;
  const bool le = layout.little_endian;
  for (std::size_t at = 0; entry > 0 && at + entry <= table.size(); at += entry) {
    ElfSection section;
    section.name = static_cast<std::uint32_t>(read_uint(table, at, 4, le));
    if (layout.is_64) {
      // Elf64_Shdr: name 4, type 4, flags 8, addr 8, offset 8, size 8, link 4, info 4, ...
      section.offset = read_uint(table, at + 0x18, 8, le);
      section.size = read_uint(table, at + 0x20, 8, le);
      section.link = static_cast<std::uint32_t>(read_uint(table, at + 0x28, 4, le));
    } else {
      // Elf32_Shdr: name 4, type 4, flags 4, addr 4, offset 4, size 4, link 4, ...
      section.offset = read_uint(table, at + 0x10, 4, le);
      section.size = read_uint(table, at + 0x14, 4, le);
      section.link = static_cast<std::uint32_t>(read_uint(table, at + 0x18, 4, le));
    }
    out.push_back(section);
  }
  return out;
}

std::string_view string_at(std::string_view table, std::uint64_t offset) {
  if (offset >= table.size()) {
    return {};
  }
  std::string_view rest = table.substr(static_cast<std::size_t>(offset));
  std::size_t end = rest.find('\0');
  return end == std::string_view::npos ? std::string_view() : rest.substr(0, end);
}

ModInfo parse_modinfo(std::string_view section) {
  ModInfo info;
  std::size_t pos = 0;
  while (pos < section.size()) {
    std::size_t end = section.find('\0', pos);
    if (end == std::string_view::npos) {
      end = section.size();
    }
    std::string_view entry = section.substr(pos, end - pos);
    pos = end + 1;
    std::size_t equals = entry.find('=');
    if (equals == std::string_view::npos) {
      continue;  // alignment padding between entries is NUL bytes
    }
    std::string_view key = entry.substr(0, equals);
    std::string value(entry.substr(equals + 1));
    if (key == "version" && info.version.empty()) {
      info.version = std::move(value);
    } else if (key == "license" && info.license.empty()) {
      info.license = std::move(value);
    } else if (key == "vermagic" && info.vermagic.empty()) {
      info.vermagic = std::move(value);
    } else if (key == "firmware" && info.firmware.size() < 64) {
      info.firmware.push_back(std::move(value));
    }
  }
  return info;
}

std::string flavor_from_license(std::string_view license) {
  // Open module: MODULE_LICENSE("Dual MIT/GPL") (kernel-open/nvidia/nv.c); the proprietary one
  // declares "NVIDIA" (knowledge file 3.1).
  if (license == "Dual MIT/GPL") {
    return "open";
  }
  if (license == "NVIDIA") {
    return "proprietary";
  }
  return {};
}

std::expected<ModInfo, std::string> read_modinfo(Host& host, const std::string& path) {
  auto header = host.read_range(path, 0, 64);
  if (!header) {
    return std::unexpected(unreadable_reason(header.error(), host));
  }
  auto layout = parse_elf_header(*header);
  if (!layout) {
    return std::unexpected(std::string("not an ELF file"));
  }
  const std::uint64_t entry = layout->section_header_size;
  std::uint64_t count = layout->section_count;
  std::uint64_t names_index = layout->names_section;
  if (count == 0 || names_index == k_shn_xindex) {
    // Extended numbering: the real values live in section header 0.
    auto first = host.read_range(path, layout->section_headers_offset, static_cast<std::size_t>(entry));
    if (!first) {
      return std::unexpected(unreadable_reason(first.error(), host));
    }
    auto zero = parse_section_headers(*first, *layout);
    if (zero.empty()) {
      return std::unexpected(std::string("truncated section header table"));
    }
    if (count == 0) {
      count = zero[0].size;
    }
    if (names_index == k_shn_xindex) {
      names_index = zero[0].link;
    }
  }
  if (count == 0 || count * entry > k_max_section_table) {
    return std::unexpected(std::string("section header table missing or too large"));
  }
  auto table = host.read_range(path, layout->section_headers_offset, static_cast<std::size_t>(count * entry));
  if (!table) {
    return std::unexpected(unreadable_reason(table.error(), host));
  }
  auto sections = parse_section_headers(*table, *layout);
  if (sections.size() != count || names_index >= sections.size()) {
    return std::unexpected(std::string("truncated section header table"));
  }
  const ElfSection& names_header = sections[static_cast<std::size_t>(names_index)];
  if (names_header.size > k_max_names_section) {
    return std::unexpected(std::string("section name table too large"));
  }
  auto names = host.read_range(path, names_header.offset, static_cast<std::size_t>(names_header.size));
  if (!names) {
    return std::unexpected(unreadable_reason(names.error(), host));
  }
  for (const ElfSection& section : sections) {
    if (string_at(*names, section.name) != ".modinfo") {
      continue;
    }
    if (section.size > k_max_modinfo) {
      return std::unexpected(std::string(".modinfo section too large"));
    }
    auto data = host.read_range(path, section.offset, static_cast<std::size_t>(section.size));
    if (!data) {
      return std::unexpected(unreadable_reason(data.error(), host));
    }
    return parse_modinfo(*data);
  }
  return std::unexpected(std::string("no .modinfo section"));
}

std::optional<bool> has_module_signature(Host& host, const std::string& path, std::uint64_t size) {
  if (size < k_signature_marker.size()) {
    return false;
  }
  auto tail = host.read_range(path, size - k_signature_marker.size(), k_signature_marker.size());
  if (!tail) {
    return std::nullopt;
  }
  return *tail == k_signature_marker;
}

}  // namespace gd
