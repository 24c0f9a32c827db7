#pragma once
// The host compiler nvcc hands the C++ side of a .cu file to, found without running anything:
// nvcc uses `gcc` from PATH unless told otherwise (NVCC_CCBIN, or -ccbin, which
// torch.utils.cpp_extension passes with the value of CC when CC is set). Its major version comes
// from the name of the file the links lead to (gcc -> gcc-13 -> x86_64-linux-gnu-gcc-13) or,
// for an unversioned name, from the <prefix>/lib/gcc/<triple>/<version>/ folder of its install.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

/// 13 for "gcc-13", "g++-13", "x86_64-linux-gnu-gcc-13", "gcc-13.2"; nullopt for "gcc", "gcc-ar-13".
std::optional<int> gcc_major_from_file_name(std::string_view file_name);

/// "gcc" for gcc/g++/cc/c++ and their prefixed or versioned names, "clang" for clang names, else "".
std::string compiler_family(std::string_view file_name);

/// The majors of the version folders under <prefix>/lib/gcc/<triple>/ ("12", "14.2.1" -> 12, 14).
struct LibGccMajors {
  std::vector<int> majors;  ///< sorted, distinct
  std::string problem;      ///< a folder that could not be listed
};
LibGccMajors lib_gcc_majors(Host& host, std::string_view prefix, std::string_view arch);

struct HostCompiler {
  std::string via;        ///< "PATH", "NVCC_CCBIN" or "CC"
  std::string requested;  ///< what was looked for: "gcc", or the variable's value
  std::string path;       ///< as found ("/usr/bin/gcc"); empty: not found
  std::string real_path;  ///< links followed ("/usr/bin/x86_64-linux-gnu-gcc-12")
  std::string family;     ///< "gcc", "clang" or "" (not recognised)
  std::optional<int> major;
  std::string major_problem;  ///< why the major is not known
  std::string problem;        ///< why no compiler could be found (unreadable folder)
};

/// Finds `requested` (a name looked up on PATH, a file path, or a folder that holds gcc, as
/// -ccbin takes them) and tells its family and major version.
HostCompiler find_host_compiler(Host& host, std::string_view path_value, std::string requested, std::string via,
                                std::string_view arch);

/// "gcc 13 (/usr/bin/x86_64-linux-gnu-gcc-13)", "gcc (/opt/gcc/bin/gcc)" when the major is unknown.
std::string host_compiler_text(const HostCompiler& compiler);

}  // namespace gd
