#pragma once
// One file named like a driver library (libcuda.so*, libnvidia-ml.so*, libcudart.so*), looked
// at through `Host`: where its links lead, the version in the real file's name, its ELF class
// and machine, and whether it is the toolkit's stub or a forward-compatibility copy.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "probes/shared/elf_load_check.hpp"
#include "sys/host.hpp"

namespace gd {

/// Parses the start of a file; nullopt when it is not ELF (no \x7fELF magic, or cut short).
std::optional<ElfIdent> parse_elf_ident(std::string_view head);

/// "ELF64 x86-64", "ELF32 i386", "ELF64 machine 21".
std::string elf_ident_text(const ElfIdent& ident);

/// The e_machine and class a program of `arch` (uname machine) needs; nullopt when unknown.
std::optional<ElfIdent> native_elf_ident(std::string_view arch);

/// The version in a library file name after `stem` ("libcuda.so"): "libcuda.so.580.159.04" ->
/// "580.159.04". With `driver_style` the version must look like a driver release (a three-digit
/// branch: 470.256.02, 580.159.04), so that WSL's libcuda.so.1.1 or the soname link
/// libcuda.so.1 give "" (no version known).
std::string version_from_file_name(std::string_view file_name, std::string_view stem, bool driver_style);

/// `path` with every symbolic link resolved through `host` (folders too), "." and ".."
/// applied; bounded to 40 links. Where a part does not exist the rest is kept as written.
std::string canonical_path(Host& host, std::string_view path);

/// The last part of a path.
std::string_view base_name(std::string_view path);

enum class ElfCheck {
  native,    ///< this host's class and machine: the loader can use it
  foreign,   ///< another class or machine (a 32-bit or other-architecture copy): the loader skips it
  not_elf,   ///< no ELF header (a linker script, an empty or cut file): the loader skips it
  unknown,   ///< the header could not be read (error says why)
};

struct LibraryFile {
  std::string path;        ///< as found: /usr/local/nvidia/lib64/libcuda.so.1
  std::string real_path;   ///< every link followed: /usr/local/nvidia/lib64/libcuda.so.580.159.04
  std::string version;     ///< from the real file's name; empty when it carries none
  ElfCheck elf = ElfCheck::unknown;
  std::string elf_text;    ///< "ELF64 x86-64" when read
  bool is_stub = false;    ///< under a stubs/ folder (CUDA toolkit link-time stub)
  bool is_compat = false;  ///< under a compat/ folder (cuda-compat forward compatibility)
  bool exists = false;     ///< stat succeeded (links followed)
  bool broken_link = false;  ///< a link whose target does not exist
  std::string error;       ///< why the file or its header could not be read
  std::uint64_t size = 0;  ///< bytes, links followed
  LoadProblem problem = LoadProblem::none;  ///< what keeps the loader from mapping it (elf_load_check.hpp)
  std::string problem_text;                 ///< what is wrong, in words
};

/// Looks at `path` (which lstat found) for library `stem` ("libcuda.so").
LibraryFile inspect_library_file(Host& host, std::string path, std::string_view stem, bool driver_style,
                                 std::string_view arch);

/// "path version" with notes: "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04 580.159.04",
/// "/usr/local/cuda/lib64/stubs/libcuda.so unknown (stub)", "... (ELF32 i386, not loadable)".
std::string library_file_text(const LibraryFile& file);

}  // namespace gd
