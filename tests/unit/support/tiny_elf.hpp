#pragma once
// ELF files built in memory for the ELF readers' tests (probes/shared/elf_modinfo, probes/shared/cuda_fatbin).
// elf_with_sections lays out any list of sections the way a linker would (gABI): ELF header, each
// section's bytes, .shstrtab, then the section header table. TinyElf is the kernel-module shape on
// top of it: .text, .modinfo and optionally the kernel's module signature marker, enough for the
// .modinfo reader to find version=, license= and vermagic= the way it does in a real nvidia.ko.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gd::test {

struct ElfSection {
  std::string name;
  std::string data;
  std::uint32_t type = 1;  // SHT_PROGBITS; 8 = SHT_NOBITS (no bytes in the file)
};

struct ElfShape {
  bool is_64 = true;
  bool little_endian = true;
  std::uint16_t file_type = 3;  // ET_DYN, a shared library; ET_REL (1) for a kernel module
  std::uint16_t machine = 62;   // x86-64; 183 is aarch64
};

/// The file: section 0 is the null section, then `sections` in order, then .shstrtab last.
inline std::string elf_with_sections(const std::vector<ElfSection>& sections, const ElfShape& shape = {}) {
  auto put = [&shape](std::string& bytes, std::size_t at, std::size_t width, std::uint64_t value) {
    for (std::size_t i = 0; i < width; ++i) {
      std::size_t shift = shape.little_endian ? 8 * i : 8 * (width - 1 - i);
      bytes[at + i] = static_cast<char>((value >> shift) & 0xff);
    }
  };
  const std::size_t header_size = shape.is_64 ? 64 : 52;
  const std::size_t entry_size = shape.is_64 ? 64 : 40;
  std::string out(header_size, '\0');
  std::string names(1, '\0');
  struct Placed {
    std::uint32_t name, type;
    std::uint64_t offset, size;
  };
  std::vector<Placed> placed = {{0, 0, 0, 0}};
  for (const ElfSection& s : sections) {
    while (out.size() % 8 != 0) out += '\0';
    placed.push_back({static_cast<std::uint32_t>(names.size()), s.type, out.size(), s.data.size()});
    names += s.name + '\0';
    if (s.type != 8) {
      out += s.data;
    }
  }
  placed.push_back({static_cast<std::uint32_t>(names.size()), 3, out.size(), 0});
  names += std::string(".shstrtab") + '\0';
  placed.back().size = names.size();
  out += names;
  while (out.size() % 8 != 0) out += '\0';
  const std::size_t table_at = out.size();
  for (const Placed& p : placed) {
    std::string entry(entry_size, '\0');
    put(entry, 0, 4, p.name);
    put(entry, 4, 4, p.type);
    if (shape.is_64) {
      put(entry, 0x18, 8, p.offset);
      put(entry, 0x20, 8, p.size);
    } else {
      put(entry, 0x10, 4, p.offset);
      put(entry, 0x14, 4, p.size);
    }
    out += entry;
  }
  // ELF header: magic, class, data, version; type, machine, version; the section table's place.
  out[0] = 0x7f;
  out[1] = 'E';
  out[2] = 'L';
  out[3] = 'F';
  out[4] = shape.is_64 ? 2 : 1;
  out[5] = shape.little_endian ? 1 : 2;
  out[6] = 1;
  put(out, 0x10, 2, shape.file_type);
  put(out, 0x12, 2, shape.machine);
  put(out, 0x14, 4, 1);
  if (shape.is_64) {
    put(out, 0x28, 8, table_at);
    put(out, 0x34, 2, 64);
    put(out, 0x3a, 2, entry_size);
    put(out, 0x3c, 2, placed.size());
    put(out, 0x3e, 2, placed.size() - 1);
  } else {
    put(out, 0x20, 4, table_at);
    put(out, 0x28, 2, 52);
    put(out, 0x2e, 2, entry_size);
    put(out, 0x30, 2, placed.size());
    put(out, 0x32, 2, placed.size() - 1);
  }
  return out;
}

struct TinyElf {
  bool is_64 = true;
  bool little_endian = true;
  std::vector<std::string> modinfo = {"version=580.159.04", "license=Dual MIT/GPL",
                                      "vermagic=6.8.0-45-generic SMP preempt mod_unload modversions "};
  bool with_modinfo = true;
  bool signed_marker = false;

  std::string build() const {
    std::string info;
    for (const std::string& entry : modinfo) {
      info += entry;
      info += '\0';
    }
    std::vector<ElfSection> sections = {{".text", "\x90\x90\x90\x90"}};
    if (with_modinfo) {
      sections.push_back({".modinfo", info});
    }
    std::string out = elf_with_sections(sections, ElfShape{is_64, little_endian, /*ET_REL*/ 1, 62});
    if (signed_marker) {
      out += std::string(40, '\x30');  // stand-in for the PKCS#7 blob and its info block
      out += "~Module signature appended~\n";
    }
    return out;
  }
};

}  // namespace gd::test
