#pragma once
// A minimal kernel-module-shaped ELF file built in memory: ELF header, a .text section, a
// .modinfo section, .shstrtab and the section header table, optionally followed by the kernel's
// module signature marker. Enough for the .modinfo reader (probes/elf_modinfo) to find
// version=, license= and vermagic= the way it does in a real nvidia.ko.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gd::test {

struct TinyElf {
  bool is_64 = true;
  bool little_endian = true;
  std::vector<std::string> modinfo = {"version=580.159.04", "license=Dual MIT/GPL",
                                      "vermagic=6.8.0-45-generic SMP preempt mod_unload modversions "};
  bool with_modinfo = true;
  bool signed_marker = false;

  std::string build() const {
    std::string shstrtab("\0.text\0.modinfo\0.shstrtab\0", 26);
    constexpr std::uint32_t k_text_name = 1, k_modinfo_name = 7, k_shstrtab_name = 16;
    std::string info;
    for (const std::string& entry : modinfo) {
      info += entry;
      info += '\0';
    }
    const std::size_t header_size = is_64 ? 64 : 52;
    const std::size_t entry_size = is_64 ? 64 : 40;
    std::string text = "\x90\x90\x90\x90";

    std::string out(header_size, '\0');
    std::size_t text_at = out.size();
    out += text;
    std::size_t modinfo_at = out.size();
    out += info;
    std::size_t names_at = out.size();
    out += shstrtab;
    while (out.size() % 8 != 0) out += '\0';
    std::size_t table_at = out.size();

    struct Section {
      std::uint32_t name, type;
      std::uint64_t offset, size;
    };
    std::vector<Section> sections = {{0, 0, 0, 0}, {k_text_name, 1, text_at, text.size()}};
    if (with_modinfo) {
      sections.push_back({k_modinfo_name, 1, modinfo_at, info.size()});
    }
    sections.push_back({k_shstrtab_name, 3, names_at, shstrtab.size()});
    for (const Section& s : sections) {
      std::string entry(entry_size, '\0');
      put(entry, 0, 4, s.name);
      put(entry, 4, 4, s.type);
      if (is_64) {
        put(entry, 0x18, 8, s.offset);
        put(entry, 0x20, 8, s.size);
      } else {
        put(entry, 0x10, 4, s.offset);
        put(entry, 0x14, 4, s.size);
      }
      out += entry;
    }

    // ELF header (gABI): magic, class, data, version; type ET_REL (1), machine x86-64 (62).
    out[0] = 0x7f;
    out[1] = 'E';
    out[2] = 'L';
    out[3] = 'F';
    out[4] = is_64 ? 2 : 1;
    out[5] = little_endian ? 1 : 2;
    out[6] = 1;
    put(out, 0x10, 2, 1);
    put(out, 0x12, 2, 62);
    put(out, 0x14, 4, 1);
    if (is_64) {
      put(out, 0x28, 8, table_at);
      put(out, 0x34, 2, 64);
      put(out, 0x3a, 2, entry_size);
      put(out, 0x3c, 2, sections.size());
      put(out, 0x3e, 2, sections.size() - 1);
    } else {
      put(out, 0x20, 4, table_at);
      put(out, 0x28, 2, 52);
      put(out, 0x2e, 2, entry_size);
      put(out, 0x30, 2, sections.size());
      put(out, 0x32, 2, sections.size() - 1);
    }
    if (signed_marker) {
      out += std::string(40, '\x30');  // stand-in for the PKCS#7 blob and its info block
      out += "~Module signature appended~\n";
    }
    return out;
  }

 private:
  void put(std::string& bytes, std::size_t at, std::size_t width, std::uint64_t value) const {
    for (std::size_t i = 0; i < width; ++i) {
      std::size_t shift = little_endian ? 8 * i : 8 * (width - 1 - i);
      bytes[at + i] = static_cast<char>((value >> shift) & 0xff);
    }
  }
};

}  // namespace gd::test
