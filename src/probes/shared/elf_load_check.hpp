#pragma once
// Whether glibc's dynamic loader can map a file it finds under the name it looks for, from the
// file's bytes alone: its size, its ELF header and program headers, checked in the order of
// glibc's elf/dl-load.c open_verify(). Some problems stop the search with an error (an empty file:
// "file too short"), some make the loader skip the file and search on (another ELF class or
// machine), and a copy cut short inside its segments is mapped anyway and usually dies of SIGBUS
// (measured with glibc 2.36: dlopen of a library cut in half is killed by SIGBUS).
// It reads the header fields the loader uses (type, machine, program headers); elf_modinfo's
// ElfLayout is about section tables and refuses a file without one, which the loader accepts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gd {

/// e_ident and e_machine of an ELF header (the first 20 bytes of the file).
struct ElfIdent {
  int elf_class = 0;           ///< 1 = ELFCLASS32, 2 = ELFCLASS64
  std::uint16_t machine = 0;   ///< EM_* (3 i386, 62 x86-64, 183 AArch64)
};

enum class LoadProblem {
  none,                 ///< loadable, as far as the file shows
  directory,            ///< "cannot read file data: Is a directory"
  device,               ///< a device node (/dev/null bound over it): reads as empty, "file too short"
  unreadable,           ///< cannot be opened (EACCES): skipped
  empty,                ///< 0 bytes: "file too short"
  too_short,            ///< shorter than an ELF header: "file too short"
  not_elf,              ///< no ELF magic: "invalid ELF header"
  byte_order,           ///< "ELF file data encoding not little-endian"
  not_shared_object,    ///< a relocatable object or core file: "only ET_DYN and ET_EXEC can be loaded"
  program_headers_cut,  ///< program headers past the end: "cannot read file data"
  segments_cut,         ///< loadable segments past the end: mapped, then SIGBUS on first touch
  sections_cut,         ///< section headers past the end: a cut copy whose segments are whole
  wrong_class,          ///< ELF32 on a 64-bit host: skipped ("wrong ELF class" when nothing else is found)
  wrong_machine,        ///< another architecture: skipped
};

/// What the loader does with a file that has `problem`.
enum class LoaderTakes {
  maps,   ///< maps it (none, sections_cut)
  fails,  ///< stops the search there with an error (or a crash)
  skips,  ///< goes on to the next place; fails only if no other copy is found
};

LoaderTakes loader_takes(LoadProblem problem);

/// The problem's name in facts: "empty", "not-elf", "segments-cut", ...; "" for none.
std::string_view to_string(LoadProblem problem);

struct LoadCheck {
  LoadProblem problem = LoadProblem::none;
  std::string text;  ///< what is wrong and what the loader does, for reports; empty for none
};

/// Checks a file of `size` bytes whose first bytes are `head` (64 bytes, or the whole file when
/// shorter) for a program of class and machine `native` (nullopt: those checks are left out).
/// `program_headers` are the bytes at program_header_range(head) when they could be read;
/// without them the segments are not checked.
LoadCheck check_elf_load(std::string_view head, std::uint64_t size, std::optional<ElfIdent> native,
                         std::optional<std::string_view> program_headers);

/// The program header table's offset and length from an ELF header; nullopt when `head` is no
/// ELF header or the table is empty or larger than any real library's (64 entries).
std::optional<std::pair<std::uint64_t, std::size_t>> program_header_range(std::string_view head);

}  // namespace gd
