#include "sys/glibc_loader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gd {
namespace {

constexpr std::size_t k_elf_read_limit = 64 * 1024;  // PT_INTERP sits in the first page

/// ELF e_machine values and where each distribution keeps that architecture's glibc loader.
struct LoaderPaths {
  std::uint16_t machine;
  std::string_view name;
  std::array<std::string_view, 6> paths;
};
constexpr std::array<LoaderPaths, 2> k_loaders = {{
    {62 /* EM_X86_64 */, "ld-linux-x86-64.so.2",
     {"/lib64/ld-linux-x86-64.so.2",                    // the ABI path (PT_INTERP)
      "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",     // Debian/Ubuntu multiarch
      "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",  // merged-/usr multiarch
      "/usr/lib64/ld-linux-x86-64.so.2",                // RHEL/Fedora/SUSE merged /usr
      "/usr/lib/ld-linux-x86-64.so.2",                  // Arch
      "/lib/ld-linux-x86-64.so.2"}},                    // gcompat-style layouts
    {183 /* EM_AARCH64 */, "ld-linux-aarch64.so.1",
     {"/lib/ld-linux-aarch64.so.1",                     // the ABI path (PT_INTERP)
      "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",   // Debian/Ubuntu multiarch
      "/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
      "/lib64/ld-linux-aarch64.so.1",                   // RHEL/Fedora
      "/usr/lib64/ld-linux-aarch64.so.1",
      "/usr/lib/ld-linux-aarch64.so.1"}},               // Arch ARM
}};

/// Programs whose PT_INTERP names the system's glibc loader where no fixed path has it (NixOS).
constexpr std::array<std::string_view, 3> k_loader_witnesses = {
    "/run/current-system/sw/bin/sh", "/bin/sh", "/usr/bin/env"};

struct ElfInfo {
  std::uint16_t machine = 0;
  std::string interp;  ///< empty: static or no PT_INTERP
};

std::uint64_t read_le(std::span<const unsigned char> bytes, std::size_t offset, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    value |= static_cast<std::uint64_t>(bytes[offset + i]) << (8 * i);
  }
  return value;
}

/// e_machine and PT_INTERP of a little-endian ELF64 image; nullopt when it is not one.
std::optional<ElfInfo> parse_elf(std::span<const unsigned char> elf) {
  constexpr unsigned char k_magic[] = {0x7f, 'E', 'L', 'F', 2 /* ELFCLASS64 */, 1 /* LSB */};
  if (elf.size() < 64 || !std::equal(std::begin(k_magic), std::end(k_magic), elf.begin())) {
    return std::nullopt;
  }
  ElfInfo info;
  info.machine = static_cast<std::uint16_t>(read_le(elf, 18, 2));
  std::uint64_t phoff = read_le(elf, 32, 8);
  std::uint64_t phentsize = read_le(elf, 54, 2);
  std::uint64_t phnum = read_le(elf, 56, 2);
  for (std::uint64_t i = 0; i < phnum && phentsize >= 56; ++i) {
    std::uint64_t ph = phoff + i * phentsize;
    if (ph > elf.size() || elf.size() - ph < 56) {
      break;
    }
    if (read_le(elf, ph, 4) != 3 /* PT_INTERP */) {
      continue;
    }
    std::uint64_t offset = read_le(elf, ph + 8, 8);
    std::uint64_t size = read_le(elf, ph + 32, 8);
    if (offset <= elf.size() && size <= elf.size() - offset) {
      std::string_view text(reinterpret_cast<const char*>(elf.data() + offset), size);
      info.interp = std::string(text.substr(0, text.find('\0')));
    }
    break;
  }
  return info;
}

bool is_runnable_file(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

/// Up to k_elf_read_limit bytes of a file; empty on any error.
std::vector<unsigned char> read_head(const char* path) {
  std::vector<unsigned char> bytes;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return bytes;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    bytes.resize(k_elf_read_limit);
    ssize_t n;
    do {
      n = ::read(fd, bytes.data(), bytes.size());
    } while (n < 0 && errno == EINTR);
    bytes.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  ::close(fd);
  return bytes;
}

}  // namespace

std::string find_glibc_loader(std::span<const unsigned char> helper_elf) {
  try {
    std::optional<ElfInfo> helper = parse_elf(helper_elf);
    if (!helper) {
      return {};
    }
    if (is_runnable_file(helper->interp)) {
      return helper->interp;
    }
    auto loaders = std::find_if(k_loaders.begin(), k_loaders.end(),
                                [&](const LoaderPaths& l) { return l.machine == helper->machine; });
    if (loaders == k_loaders.end()) {
      return {};
    }
    for (std::string_view path : loaders->paths) {
      if (is_runnable_file(std::string(path))) {
        return std::string(path);
      }
    }
    // Only a glibc loader of the same architecture will do: /bin/sh on Alpine names ld-musl.
    for (std::string_view witness : k_loader_witnesses) {
      std::optional<ElfInfo> info = parse_elf(read_head(std::string(witness).c_str()));
      std::string_view interp = info ? std::string_view(info->interp) : std::string_view();
      std::string_view base = interp.substr(interp.rfind('/') + 1);
      if (info && info->machine == helper->machine && base == loaders->name &&
          is_runnable_file(info->interp)) {
        return info->interp;
      }
    }
  } catch (...) {
    // allocation failure: no loader found is the honest answer
  }
  return {};
}

}  // namespace gd
