// ELF headers, section tables, a kernel module's .modinfo and the loader's checks, from the same bytes.
#include "fuzz_target.hpp"
#include "probes/shared/elf_modinfo.hpp"
#include "probes/shared/library_file.hpp"

GD_FUZZ_TEXT({
  (void)gd::parse_elf_ident(text);
  // The loader's checks, with the same bytes as the file's head and as its program headers.
  if (auto range = gd::program_header_range(text); range && range->first <= text.size()) {
    (void)gd::check_elf_load(text.substr(0, 64), text.size(), gd::ElfIdent{2, 62}, text.substr(range->first, range->second));
  }
  (void)gd::check_elf_load(text.substr(0, 64), text.size(), std::nullopt, std::nullopt);
  if (auto layout = gd::parse_elf_header(text)) {
    auto sections = gd::parse_section_headers(text, *layout);
    for (const auto& section : sections) (void)gd::string_at(text, section.name);
  }
  (void)gd::parse_modinfo(text);
})
