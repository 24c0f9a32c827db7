#include "probes/system/libc_version.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace gd {
namespace {

constexpr std::size_t k_max_ldd_bytes = 64 << 10;         // the ldd script is about 5 KiB
constexpr std::size_t k_chunk = 64 << 10;                 // .rodata is read in pieces this big
constexpr std::size_t k_max_rodata = 2 << 20;             // glibc's .rodata is about 150-250 KiB
constexpr std::size_t k_banner_overlap = 256;             // a banner cut by a chunk edge is found in the next
constexpr std::uint64_t k_max_sections = 256;             // libc.so.6 has about 70
constexpr std::size_t k_max_shstrtab = 64 << 10;

struct ArchPaths {
  std::string_view arch;
  std::array<std::string_view, 5> loaders;  // glibc's dynamic loader (PT_INTERP of every program)
  std::array<std::string_view, 6> libcs;    // libc.so.6
  std::string_view musl_loader;             // musl's, which is also its libc
};

constexpr std::array<ArchPaths, 2> k_paths = {{
    {"x86_64",
     {"/lib64/ld-linux-x86-64.so.2",                    // the x86-64 psABI path
      "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",     // Debian/Ubuntu multiarch
      "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
      "/usr/lib64/ld-linux-x86-64.so.2",                // Fedora/RHEL/SUSE merged /usr
      "/usr/lib/ld-linux-x86-64.so.2"},                 // Arch
     {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",  // Debian/Ubuntu
      "/lib64/libc.so.6", "/usr/lib64/libc.so.6",                                // Fedora/RHEL/SUSE
      "/usr/lib/libc.so.6", "/lib/libc.so.6"},                                   // Arch, others
     "/lib/ld-musl-x86_64.so.1"},                       // Alpine, Void musl
    {"aarch64",
     {"/lib/ld-linux-aarch64.so.1",                     // the AArch64 ABI path
      "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",   // Debian/Ubuntu multiarch
      "/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
      "/lib64/ld-linux-aarch64.so.1",                   // Fedora/RHEL
      "/usr/lib/ld-linux-aarch64.so.1"},                // Arch ARM
     {"/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6",
      "/lib64/libc.so.6", "/usr/lib64/libc.so.6",
      "/usr/lib/libc.so.6", "/lib/libc.so.6"},
     "/lib/ld-musl-aarch64.so.1"},
}};

// Where the ldd script is (glibc installs it in bindir; NixOS in the system profile).
constexpr std::array<std::string_view, 3> k_ldd_paths = {"/usr/bin/ldd", "/bin/ldd", "/run/current-system/sw/bin/ldd"};

std::uint64_t le(std::string_view bytes, std::size_t offset, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

/// "2.39" at the start of `text` (digits and dots, at least one dot, no trailing dot).
std::optional<std::string> leading_version(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || text[n] == '.')) {
    ++n;
  }
  std::string_view version = text.substr(0, n);
  while (!version.empty() && version.back() == '.') {
    version.remove_suffix(1);
  }
  if (version.empty() || version.find('.') == std::string_view::npos || version.front() == '.') {
    return std::nullopt;
  }
  return std::string(version);
}

struct Section {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

/// The file offset and size of section `name` of a little-endian ELF64 file.
std::optional<Section> find_section(Host& host, std::string_view path, std::string_view name) {
  auto header = host.read_range(path, 0, 64);
  if (!header || header->size() < 64 || !header->starts_with("\x7f" "ELF\x02\x01")) {
    return std::nullopt;
  }
  std::uint64_t shoff = le(*header, 0x28, 8);
  std::uint64_t shentsize = le(*header, 0x3a, 2);
  std::uint64_t shnum = le(*header, 0x3c, 2);
  std::uint64_t shstrndx = le(*header, 0x3e, 2);
  if (shentsize < 64 || shnum == 0 || shnum > k_max_sections || shstrndx >= shnum) {
    return std::nullopt;
  }
  auto table = host.read_range(path, shoff, static_cast<std::size_t>(shnum * shentsize));
  if (!table || table->size() < shnum * shentsize) {
    return std::nullopt;
  }
  auto section_at = [&](std::uint64_t i) {
    std::size_t at = static_cast<std::size_t>(i * shentsize);  // Elf64_Shdr: sh_offset @24, sh_size @32
    return Section{le(*table, at + 24, 8), le(*table, at + 32, 8)};
  };
  Section strtab = section_at(shstrndx);
  auto names = host.read_range(path, strtab.offset, static_cast<std::size_t>(std::min<std::uint64_t>(strtab.size, k_max_shstrtab)));
  if (!names) {
    return std::nullopt;
  }
  for (std::uint64_t i = 0; i < shnum; ++i) {
    std::uint64_t name_at = le(*table, static_cast<std::size_t>(i * shentsize), 4);
    if (name_at < names->size() && std::string_view(*names).substr(name_at).starts_with(std::string(name) + '\0')) {
      return section_at(i);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> glibc_version_from_banner(std::string_view text) {
  constexpr std::string_view k_marker = " release version ";
  for (std::string_view lead : {std::string_view("GNU C Library "), std::string_view("ldconfig ")}) {
    std::size_t start = text.find(lead);
    while (start != std::string_view::npos) {
      std::size_t line_end = text.find_first_of("\n", start);
      std::string_view line = text.substr(start, line_end == std::string_view::npos ? std::string_view::npos : line_end - start);
      std::size_t marker = line.find(k_marker);
      if (marker != std::string_view::npos) {
        if (auto version = leading_version(line.substr(marker + k_marker.size()))) {
          return version;
        }
      }
      start = text.find(lead, start + 1);
    }
  }
  return std::nullopt;
}

std::optional<std::string> glibc_version_from_ldd(std::string_view script) {
  constexpr std::string_view k_marker = "ldd (";
  std::size_t at = script.find(k_marker);
  while (at != std::string_view::npos) {
    std::size_t close = script.find(") ", at);
    std::size_t line_end = script.find('\n', at);
    if (close != std::string_view::npos && (line_end == std::string_view::npos || close < line_end)) {
      if (auto version = leading_version(script.substr(close + 2))) {
        return version;
      }
    }
    at = script.find(k_marker, at + 1);
  }
  return std::nullopt;
}

std::optional<std::string> glibc_version_from_file_name(std::string_view name) {
  if (!name.starts_with("libc-") || !name.ends_with(".so")) {
    return std::nullopt;
  }
  std::string_view middle = name.substr(5, name.size() - 8);
  auto version = leading_version(middle);
  if (!version || version->size() != middle.size()) {
    return std::nullopt;
  }
  return version;
}

std::optional<std::string> glibc_version_from_libc_file(Host& host, std::string_view path) {
  auto rodata = find_section(host, path, ".rodata");
  if (!rodata) {
    return std::nullopt;
  }
  std::uint64_t end = rodata->offset + std::min<std::uint64_t>(rodata->size, k_max_rodata);
  for (std::uint64_t at = rodata->offset; at < end; at += k_chunk - k_banner_overlap) {
    auto chunk = host.read_range(path, at, static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk, end - at)));
    if (!chunk || chunk->empty()) {
      return std::nullopt;
    }
    if (chunk->find("GNU C Library ") != std::string::npos) {
      if (auto version = glibc_version_from_banner(*chunk)) {
        return version;
      }
    }
    if (chunk->size() < k_chunk) {
      break;
    }
  }
  return std::nullopt;
}

LibcInfo detect_libc(Host& host, std::string_view arch, std::string_view cache_generator) {
  LibcInfo info;
  info.libc = "none";
  const ArchPaths* paths = nullptr;
  for (const ArchPaths& p : k_paths) {
    if (p.arch == arch) {
      paths = &p;
    }
  }
  std::string libc_path;
  if (paths) {
    for (std::string_view loader : paths->loaders) {
      if (host.stat(loader)) {
        info.libc = "glibc";
        info.evidence = std::string(loader);
        break;
      }
    }
    for (std::string_view libc : paths->libcs) {
      if (host.stat(libc)) {
        libc_path = std::string(libc);
        break;
      }
    }
  }
  // 1. Before glibc 2.34 libc.so.6 is a link to libc-2.NN.so: the name says it.
  if (!libc_path.empty()) {
    if (auto target = host.read_link(libc_path)) {
      std::size_t slash = target->rfind('/');
      if (auto version = glibc_version_from_file_name(slash == std::string::npos ? *target : target->substr(slash + 1))) {
        info.version = *version;
        info.source = libc_path;
      }
    }
  }
  // 2. The ldd script of the same glibc build: a few KiB of text.
  for (std::string_view ldd : k_ldd_paths) {
    auto script = host.read_file(ldd, k_max_ldd_bytes);
    if (!script) {
      continue;
    }
    auto version = glibc_version_from_ldd(*script);
    if (version && info.libc == "none") {  // musl's ldd is its loader, never this script
      info.libc = "glibc";
      info.evidence = std::string(ldd);
    }
    if (version && info.version.empty()) {
      info.version = *version;
      info.source = std::string(ldd);
    }
    break;
  }
  // 3. The banner inside libc.so.6 itself.
  if (info.version.empty() && !libc_path.empty()) {
    if (auto version = glibc_version_from_libc_file(host, libc_path)) {
      info.version = *version;
      info.source = libc_path;
    }
  }
  // 4. The ldconfig that wrote /etc/ld.so.cache belongs to the installed glibc.
  if (info.version.empty() && info.libc == "glibc") {
    if (auto version = glibc_version_from_banner(cache_generator)) {
      info.version = *version;
      info.source = "/etc/ld.so.cache";
    }
  }
  if (info.libc == "none" && paths && host.stat(paths->musl_loader)) {
    info.libc = "musl";
    info.evidence = std::string(paths->musl_loader);
  }
  return info;
}

}  // namespace gd
