// ELF headers, section tables and a kernel module's .modinfo, from the same bytes.
#include "fuzz_target.hpp"
#include "probes/shared/elf_modinfo.hpp"
#include "probes/shared/library_file.hpp"

GD_FUZZ_TEXT({
  (void)gd::parse_elf_ident(text);
  if (auto layout = gd::parse_elf_header(text)) {
    auto sections = gd::parse_section_headers(text, *layout);
    for (const auto& section : sections) (void)gd::string_at(text, section.name);
  }
  (void)gd::parse_modinfo(text);
})
