#include "probes/shared/library_file.hpp"

#include "util/text_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <vector>

namespace gd {
namespace {

constexpr int k_max_links = 40;           // the kernel's MAXSYMLINKS
constexpr std::size_t k_elf_head = 64;    // sizeof(Elf64_Ehdr): all that is needed

struct MachineName {
  std::uint16_t machine;
  std::string_view name;
};
// e_machine values, glibc elf/elf.h
constexpr std::array<MachineName, 6> k_machines = {{
    {3, "i386"},       // EM_386
    {20, "PowerPC"},   // EM_PPC
    {21, "PowerPC64"}, // EM_PPC64
    {40, "ARM"},       // EM_ARM
    {62, "x86-64"},    // EM_X86_64
    {183, "AArch64"},  // EM_AARCH64
}};

struct NativeArch {
  std::string_view arch;  // uname machine
  ElfIdent ident;
};
constexpr std::array<NativeArch, 2> k_native = {{
    {"x86_64", {2, 62}},    // ELFCLASS64, EM_X86_64
    {"aarch64", {2, 183}},  // ELFCLASS64, EM_AARCH64
}};

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> parts;
  for (std::string_view part : split_nonempty(path, '/')) {
    parts.emplace_back(part);
  }
  return parts;
}

std::string parent_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

bool has_folder(std::string_view path, std::string_view folder) {
  return path.find("/" + std::string(folder) + "/") != std::string_view::npos;
}

/// The loader's verdict on the file, with its program headers read when the header names them.
void check_load(Host& host, LibraryFile& file, std::string_view head, std::string_view arch) {
  std::optional<std::string> table;
  if (auto range = program_header_range(head); range && range->first <= file.size && range->second <= file.size - range->first) {
    if (auto bytes = host.read_range(file.path, range->first, range->second); bytes && bytes->size() == range->second) {
      table = std::move(*bytes);
    }
  }
  LoadCheck check = check_elf_load(head, file.size, native_elf_ident(arch),
                                   table ? std::optional<std::string_view>(*table) : std::nullopt);
  file.problem = check.problem;
  file.problem_text = std::move(check.text);
}

}  // namespace

std::optional<ElfIdent> parse_elf_ident(std::string_view head) {
  if (head.size() < 20 || !head.starts_with("\x7f" "ELF")) {
    return std::nullopt;
  }
  ElfIdent ident;
  ident.elf_class = static_cast<unsigned char>(head[4]);  // EI_CLASS
  bool big_endian = static_cast<unsigned char>(head[5]) == 2;  // EI_DATA == ELFDATA2MSB
  auto lo = static_cast<std::uint16_t>(static_cast<unsigned char>(head[big_endian ? 19 : 18]));
  auto hi = static_cast<std::uint16_t>(static_cast<unsigned char>(head[big_endian ? 18 : 19]));
  ident.machine = static_cast<std::uint16_t>(lo | (hi << 8));  // e_machine at offset 18
  return ident;
}

std::string elf_ident_text(const ElfIdent& ident) {
  std::string bits = ident.elf_class == 1 ? "ELF32" : ident.elf_class == 2 ? "ELF64" : "ELF";
  for (const MachineName& m : k_machines) {
    if (m.machine == ident.machine) {
      return bits + " " + std::string(m.name);
    }
  }
  return fmt::format("{} machine {}", bits, ident.machine);
}

std::optional<ElfIdent> native_elf_ident(std::string_view arch) {
  for (const NativeArch& n : k_native) {
    if (n.arch == arch) {
      return n.ident;
    }
  }
  return std::nullopt;
}

std::string version_from_file_name(std::string_view file_name, std::string_view stem, bool driver_style) {
  std::string prefix = std::string(stem) + ".";
  if (!file_name.starts_with(prefix)) {
    return "";
  }
  std::string_view rest = file_name.substr(prefix.size());
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    std::size_t dot = rest.find('.', pos);
    if (dot == std::string_view::npos) {
      dot = rest.size();
    }
    parts.push_back(rest.substr(pos, dot - pos));
    pos = dot + 1;
  }
  for (std::string_view part : parts) {
    if (!all_digits(part)) {
      return "";
    }
  }
  // NVIDIA driver releases: a three-digit branch and at least a minor (390.157, 580.159.04).
  if (driver_style && (parts.size() < 2 || parts.front().size() != 3)) {
    return "";
  }
  return std::string(rest);
}

std::string canonical_path(Host& host, std::string_view path) {
  std::vector<std::string> todo = components(path);
  std::reverse(todo.begin(), todo.end());  // a stack: the next part is at the back
  std::string out;
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == ".") {
      continue;
    }
    if (part == "..") {
      out = parent_of(out);
      continue;
    }
    std::string candidate = out + "/" + part;
    auto st = host.lstat(candidate);
    if (st && st->kind == FileKind::symlink && links < k_max_links) {
      auto target = host.read_link(candidate);
      if (target) {
        ++links;
        if (target->starts_with("/")) {
          out.clear();
        }
        std::vector<std::string> more = components(*target);
        for (auto it = more.rbegin(); it != more.rend(); ++it) {
          todo.push_back(*it);
        }
        continue;
      }
    }
    out = std::move(candidate);
  }
  return out.empty() ? "/" : out;
}

std::string_view base_name(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

LibraryFile inspect_library_file(Host& host, std::string path, std::string_view stem, bool driver_style,
                                 std::string_view arch) {
  LibraryFile file;
  file.path = std::move(path);
  auto lst = host.lstat(file.path);
  auto st = host.stat(file.path);
  file.exists = st.has_value();
  if (!st) {
    file.broken_link = lst && lst->kind == FileKind::symlink && st.error().code == ENOENT;
    file.error = st.error().describe();
  }
  file.real_path = canonical_path(host, file.path);
  file.version = version_from_file_name(base_name(file.real_path), stem, driver_style);
  file.is_stub = has_folder(file.path, "stubs") || has_folder(file.real_path, "stubs");
  file.is_compat = has_folder(file.path, "compat") || has_folder(file.real_path, "compat");
  if (!file.exists) {
    return file;
  }
  file.size = st->size;
  if (st->kind == FileKind::directory) {
    file.problem = LoadProblem::directory;
    file.problem_text = "a directory, not a file: the loader stops there with \"cannot read file data: Is a directory\"";
    return file;
  }
  if (st->kind == FileKind::char_device || st->kind == FileKind::block_device) {
    // Not read: a device's bytes are not the library's. /dev/null bound over the file (a way to
    // hide a library) reads as 0 bytes: measured with glibc 2.36, dlopen says "file too short".
    file.problem = LoadProblem::device;
    bool dev_null = st->kind == FileKind::char_device && st->major == 1 && st->minor == 3;
    file.problem_text = fmt::format("a {} device node ({}:{}{}), not a file: the loader reads no ELF header from it and stops "
                                    "there{}",
                                    st->kind == FileKind::char_device ? "character" : "block", st->major, st->minor,
                                    dev_null ? ", /dev/null" : "", dev_null ? " with \"file too short\"" : "");
    return file;
  }
  auto head = host.read_range(file.path, 0, k_elf_head);
  if (!head) {
    file.elf = ElfCheck::unknown;
    file.error = "ELF header: " + head.error().describe();
    if (head.error().code == EACCES) {
      file.problem = LoadProblem::unreadable;
      file.problem_text = "cannot be opened (" + head.error().describe() + "): the loader skips it";
    }
    return file;
  }
  check_load(host, file, *head, arch);
  auto ident = parse_elf_ident(*head);
  if (!ident) {
    file.elf = ElfCheck::not_elf;
    return file;
  }
  file.elf_text = elf_ident_text(*ident);
  auto native = native_elf_ident(arch);
  if (!native) {
    file.elf = ElfCheck::unknown;  // an architecture gpudoctor has no table row for
  } else {
    bool same = native->elf_class == ident->elf_class && native->machine == ident->machine;
    file.elf = same ? ElfCheck::native : ElfCheck::foreign;
  }
  return file;
}

std::string library_file_text(const LibraryFile& file) {
  std::string text = file.real_path + " " + (file.version.empty() ? "unknown" : file.version);
  std::vector<std::string> notes;
  if (file.is_stub) {
    notes.emplace_back("stub");
  }
  if (file.is_compat) {
    notes.emplace_back("compat");
  }
  if (file.elf == ElfCheck::foreign) {
    notes.push_back(file.elf_text + ", not loadable here");
  } else if (file.problem == LoadProblem::empty) {
    notes.emplace_back("empty");
  } else if (file.elf == ElfCheck::not_elf) {
    notes.emplace_back("not an ELF file");
  } else if (loader_takes(file.problem) != LoaderTakes::skips && file.problem != LoadProblem::none) {
    notes.push_back(std::string(to_string(file.problem)));  // segments-cut, a directory, ...
  }
  if (!notes.empty()) {
    text += " (";
    for (std::size_t i = 0; i < notes.size(); ++i) {
      text += (i ? ", " : "") + notes[i];
    }
    text += ")";
  }
  return text;
}

}  // namespace gd
