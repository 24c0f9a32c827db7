#include "probes/shared/elf_load_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

namespace gd {
namespace {

constexpr std::uint64_t k_ehdr_bytes = 64;      // sizeof(Elf64_Ehdr): what a 64-bit loader reads first
constexpr std::size_t k_max_program_headers = 64;  // real libraries have 7 to 12
constexpr std::uint32_t k_pt_load = 1;          // PT_LOAD

/// The ELF header fields the loader looks at, read in the file's own class and byte order.
struct Header {
  bool is_64 = true;
  bool big_endian = false;
  std::uint16_t type = 0;
  std::uint16_t machine = 0;
  std::uint64_t phoff = 0;
  std::uint64_t shoff = 0;
  std::uint16_t phentsize = 0;
  std::uint16_t phnum = 0;
  std::uint16_t shentsize = 0;
  std::uint16_t shnum = 0;
};

std::uint64_t read_uint(std::string_view bytes, std::size_t at, std::size_t width, bool big_endian) {
  std::uint64_t value = 0;
  if (at + width > bytes.size()) {
    return 0;
  }
  for (std::size_t i = 0; i < width; ++i) {
    auto byte = static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + (big_endian ? i : width - 1 - i)]));
    value = (value << 8) | byte;
  }
  return value;
}

std::optional<Header> parse_header(std::string_view head) {
  if (head.size() < 52 || !head.starts_with("\x7f" "ELF")) {  // 52: sizeof(Elf32_Ehdr)
    return std::nullopt;
  }
  Header h;
  h.is_64 = static_cast<unsigned char>(head[4]) == 2;
  h.big_endian = static_cast<unsigned char>(head[5]) == 2;
  if (h.is_64 && head.size() < k_ehdr_bytes) {
    return std::nullopt;
  }
  auto u = [&](std::size_t at, std::size_t width) { return read_uint(head, at, width, h.big_endian); };
  h.type = static_cast<std::uint16_t>(u(16, 2));
  h.machine = static_cast<std::uint16_t>(u(18, 2));
  if (h.is_64) {
    h.phoff = u(32, 8);
    h.shoff = u(40, 8);
    h.phentsize = static_cast<std::uint16_t>(u(54, 2));
    h.phnum = static_cast<std::uint16_t>(u(56, 2));
    h.shentsize = static_cast<std::uint16_t>(u(58, 2));
    h.shnum = static_cast<std::uint16_t>(u(60, 2));
  } else {
    h.phoff = u(28, 4);
    h.shoff = u(32, 4);
    h.phentsize = static_cast<std::uint16_t>(u(42, 2));
    h.phnum = static_cast<std::uint16_t>(u(44, 2));
    h.shentsize = static_cast<std::uint16_t>(u(46, 2));
    h.shnum = static_cast<std::uint16_t>(u(48, 2));
  }
  return h;
}

std::string ident_text(int elf_class, std::uint16_t machine) {
  struct Name {
    std::uint16_t machine;
    std::string_view name;
  };
  // e_machine values, glibc elf/elf.h
  constexpr std::array<Name, 6> k_names = {{
      {3, "i386"}, {20, "PowerPC"}, {21, "PowerPC64"}, {40, "ARM"}, {62, "x86-64"}, {183, "AArch64"},
  }};
  std::string bits = elf_class == 1 ? "ELF32" : elf_class == 2 ? "ELF64" : "ELF";
  for (const Name& n : k_names) {
    if (n.machine == machine) {
      return bits + " " + std::string(n.name);
    }
  }
  return fmt::format("{} machine {}", bits, machine);
}

/// The first bytes of a file that is not ELF, as text when they are text ("INPUT(") and in hex otherwise.
std::string preview(std::string_view head) {
  std::string_view start = head.substr(0, 12);
  if (std::all_of(start.begin(), start.end(), [](char c) { return c == 0; })) {
    return "zero bytes";
  }
  bool text = std::all_of(start.begin(), start.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isprint(u) || u == '\n' || u == '\t';
  });
  if (text) {
    std::string shown;
    for (char c : start.substr(0, 8)) {
      shown += c == '\n' || c == '\t' ? ' ' : c;
    }
    return fmt::format("\"{}\"", shown);
  }
  std::string hex;
  for (char c : start.substr(0, 4)) {
    hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  }
  return "bytes " + hex;
}

std::string_view type_text(std::uint16_t type) {
  switch (type) {
    case 0: return "ELF file of no type (ET_NONE)";
    case 1: return "ELF relocatable object (a .o file, ET_REL)";
    case 4: return "ELF core dump (ET_CORE)";
    default: return "ELF file of an unknown type";
  }
}

LoadCheck problem(LoadProblem p, std::string text) { return {p, std::move(text)}; }

/// a + b, or the largest value when that overflows (a corrupt header's offsets can be anything).
std::uint64_t add_capped(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/// The end of the loadable segments (p_offset + p_filesz of every PT_LOAD), nullopt when the table is cut.
std::optional<std::uint64_t> segments_end(const Header& h, std::string_view table) {
  std::size_t entry = h.is_64 ? 56 : 32;
  if (h.phentsize != entry || table.size() < static_cast<std::size_t>(h.phnum) * entry) {
    return std::nullopt;
  }
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < h.phnum; ++i) {
    std::string_view ph = table.substr(i * entry, entry);
    if (read_uint(ph, 0, 4, h.big_endian) != k_pt_load) {
      continue;
    }
    std::uint64_t offset = h.is_64 ? read_uint(ph, 8, 8, h.big_endian) : read_uint(ph, 4, 4, h.big_endian);
    std::uint64_t filesz = h.is_64 ? read_uint(ph, 32, 8, h.big_endian) : read_uint(ph, 16, 4, h.big_endian);
    end = std::max(end, add_capped(offset, filesz));
  }
  return end;
}

}  // namespace

LoaderTakes loader_takes(LoadProblem p) {
  switch (p) {
    case LoadProblem::none:
    case LoadProblem::sections_cut: return LoaderTakes::maps;
    case LoadProblem::unreadable:
    case LoadProblem::wrong_class:
    case LoadProblem::wrong_machine: return LoaderTakes::skips;
    default: return LoaderTakes::fails;
  }
}

std::string_view to_string(LoadProblem p) {
  switch (p) {
    case LoadProblem::none: return "";
    case LoadProblem::directory: return "directory";
    case LoadProblem::device: return "device";
    case LoadProblem::unreadable: return "unreadable";
    case LoadProblem::empty: return "empty";
    case LoadProblem::too_short: return "too-short";
    case LoadProblem::not_elf: return "not-elf";
    case LoadProblem::byte_order: return "byte-order";
    case LoadProblem::not_shared_object: return "not-shared-object";
    case LoadProblem::program_headers_cut: return "program-headers-cut";
    case LoadProblem::segments_cut: return "segments-cut";
    case LoadProblem::sections_cut: return "sections-cut";
    case LoadProblem::wrong_class: return "wrong-class";
    case LoadProblem::wrong_machine: return "wrong-machine";
  }
  return "";
}

LoadCheck check_elf_load(std::string_view head, std::uint64_t size, std::optional<ElfIdent> native,
                         std::optional<std::string_view> program_headers) {
  if (size == 0) {
    return problem(LoadProblem::empty, "the file is empty: the loader stops there with \"file too short\"");
  }
  if (size < k_ehdr_bytes) {
    return problem(LoadProblem::too_short, fmt::format("{} bytes are fewer than an ELF header's 64: the loader stops there "
                                                       "with \"file too short\"", size));
  }
  auto h = parse_header(head);
  if (!h) {
    return problem(LoadProblem::not_elf, fmt::format("not an ELF file (it starts with {}): the loader stops there with "
                                                     "\"invalid ELF header\"", preview(head)));
  }
  int elf_class = h->is_64 ? 2 : 1;
  std::string here = native ? ident_text(native->elf_class, native->machine) : "";
  std::string file = ident_text(elf_class, h->machine);
  if (native && native->elf_class != elf_class) {
    return problem(LoadProblem::wrong_class,
                   fmt::format("{}, but programs here are {}: the loader skips it (\"wrong ELF class: ELFCLASS{}\" when it "
                               "finds no other copy)", file, here, h->is_64 ? 64 : 32));
  }
  if (native && h->big_endian) {  // both native architectures (x86-64, AArch64 Linux) are little-endian
    return problem(LoadProblem::byte_order, fmt::format("{} in big-endian byte order: the loader stops there with \"ELF "
                                                        "file data encoding not little-endian\"", file));
  }
  if (native && native->machine != h->machine) {
    return problem(LoadProblem::wrong_machine,
                   fmt::format("{}, but programs here are {}: the loader skips it", file, here));
  }
  if (h->type != 2 && h->type != 3) {  // ET_EXEC, ET_DYN
    return problem(LoadProblem::not_shared_object, fmt::format("an {}, not a shared library: the loader stops there with "
                                                               "\"only ET_DYN and ET_EXEC can be loaded\"", type_text(h->type)));
  }
  std::uint64_t ph_end = add_capped(h->phoff, std::uint64_t{h->phnum} * h->phentsize);
  if (ph_end > size) {
    return problem(LoadProblem::program_headers_cut,
                   fmt::format("truncated: its program headers end at byte {}, past the end of the file: the loader stops "
                               "there with \"cannot read file data\"", ph_end));
  }
  if (program_headers) {
    if (auto end = segments_end(*h, *program_headers); end && *end > size) {
      return problem(LoadProblem::segments_cut,
                     fmt::format("truncated: its loadable segments end at byte {}, past the end of the file: the loader maps "
                                 "bytes that are not there, and the program usually dies of SIGBUS (bus error) inside dlopen", *end));
    }
  }
  std::uint64_t sh_end = add_capped(h->shoff, std::uint64_t{h->shnum} * h->shentsize);
  if (h->shoff != 0 && h->shnum != 0 && sh_end > size) {
    return problem(LoadProblem::sections_cut,
                   fmt::format("truncated: its section headers end at byte {}, past the end of the file (a copy cut short; "
                               "{})", sh_end, program_headers ? "its segments are whole, so the loader may still map it"
                                                              : "its segments were not checked"));
  }
  return {};
}

std::optional<std::pair<std::uint64_t, std::size_t>> program_header_range(std::string_view head) {
  auto h = parse_header(head);
  if (!h || h->phnum == 0 || h->phnum > k_max_program_headers || h->phentsize != (h->is_64 ? 56 : 32)) {
    return std::nullopt;
  }
  return std::pair{h->phoff, static_cast<std::size_t>(h->phnum) * h->phentsize};
}

}  // namespace gd
