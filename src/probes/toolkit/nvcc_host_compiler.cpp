#include "probes/toolkit/nvcc_host_compiler.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "probes/shared/library_file.hpp"
#include "probes/toolkit/path_search.hpp"

namespace gd {
namespace {

std::optional<int> leading_number(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0 || (digits < text.size() && text[digits] != '.')) {
    return std::nullopt;
  }
  return std::stoi(std::string(text.substr(0, digits)));
}

/// "gcc", "g++" alone or after a target prefix ending in '-' ("x86_64-linux-gnu-gcc").
bool is_gcc_stem(std::string_view name) {
  for (std::string_view stem : {"gcc", "g++"}) {
    if (name == stem || (name.ends_with(stem) && name[name.size() - stem.size() - 1] == '-')) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<int> gcc_major_from_file_name(std::string_view file_name) {
  std::size_t dash = file_name.rfind('-');
  if (dash == std::string_view::npos || !is_gcc_stem(file_name.substr(0, dash))) {
    return std::nullopt;
  }
  return leading_number(file_name.substr(dash + 1));
}

std::string compiler_family(std::string_view file_name) {
  if (file_name.find("clang") != std::string_view::npos) {
    return "clang";
  }
  // cc and c++ are gcc on the distributions nvcc supports (Debian's alternatives, RHEL's wrapper).
  if (is_gcc_stem(file_name) || gcc_major_from_file_name(file_name) || file_name == "cc" || file_name == "c++") {
    return "gcc";
  }
  return {};
}

LibGccMajors lib_gcc_majors(Host& host, std::string_view prefix, std::string_view arch) {
  LibGccMajors out;
  std::string lib_gcc = join_path(prefix, "lib/gcc");
  auto triples = host.list_dir(lib_gcc);
  if (!triples) {
    if (triples.error().code != ENOENT && triples.error().code != ENOTDIR) {
      out.problem = lib_gcc + ": " + triples.error().describe();
    }
    return out;
  }
  for (const std::string& triple : *triples) {
    // Only the native compiler's folder: x86_64-linux-gnu, not i686-linux-gnu or x86_64-w64-mingw32.
    if (!triple.starts_with(std::string(arch) + "-") || triple.find("mingw") != std::string::npos) {
      continue;
    }
    std::string dir = join_path(lib_gcc, triple);
    auto versions = host.list_dir(dir);
    if (!versions) {
      if (out.problem.empty()) {
        out.problem = dir + ": " + versions.error().describe();
      }
      continue;
    }
    for (const std::string& version : *versions) {
      if (auto major = leading_number(version)) {
        out.majors.push_back(*major);
      }
    }
  }
  std::sort(out.majors.begin(), out.majors.end());
  out.majors.erase(std::unique(out.majors.begin(), out.majors.end()), out.majors.end());
  return out;
}

HostCompiler find_host_compiler(Host& host, std::string_view path_value, std::string requested, std::string via,
                                std::string_view arch) {
  HostCompiler out;
  out.via = std::move(via);
  out.requested = std::move(requested);
  if (out.requested.find('/') == std::string::npos) {
    PathLookup lookup = find_on_path(host, path_value, out.requested);
    out.path = lookup.found;
    out.problem = lookup.problem;
  } else {
    // -ccbin takes a folder too; nvcc then looks for its default compiler, gcc, in it.
    auto st = host.stat(out.requested);
    if (!st) {
      if (st.error().code != ENOENT && st.error().code != ENOTDIR) {
        out.problem = out.requested + ": " + st.error().describe();
      }
      return out;
    }
    out.path = st->kind == FileKind::directory ? join_path(out.requested, "gcc") : out.requested;
  }
  if (out.path.empty()) {
    return out;
  }
  out.real_path = canonical_path(host, out.path);
  std::string_view real_name = base_name(out.real_path);
  out.family = compiler_family(real_name);
  if (out.family.empty()) {
    out.family = compiler_family(base_name(out.path));  // a wrapper script named gcc, ccache's links
  }
  if (out.family != "gcc") {
    out.major_problem = "not gcc: only gcc versions are read";
    return out;
  }
  if ((out.major = gcc_major_from_file_name(real_name))) {
    return out;
  }
  // An unversioned gcc (Fedora, Arch, a wrapper script): its install's lib/gcc/<triple>/<N>/.
  std::string prefix = parent_folder(parent_folder(out.real_path));
  LibGccMajors majors = lib_gcc_majors(host, prefix, arch);
  if (majors.majors.size() == 1) {
    out.major = majors.majors.front();
  } else if (!majors.problem.empty()) {
    out.major_problem = majors.problem;
  } else if (majors.majors.empty()) {
    out.major_problem = std::string("no version in the name ") + std::string(real_name) + " and no " +
                        join_path(prefix, "lib/gcc") + "/" + std::string(arch) + "-*/<version>/ folder";
  } else {
    std::string list;
    for (int major : majors.majors) {
      list += (list.empty() ? "" : ", ") + std::to_string(major);
    }
    out.major_problem = std::string("no version in the name ") + std::string(real_name) + " and " +
                        join_path(prefix, "lib/gcc") + " holds several (" + list + ")";
  }
  return out;
}

std::string host_compiler_text(const HostCompiler& compiler) {
  std::string family = compiler.family.empty() ? std::string(base_name(compiler.real_path)) : compiler.family;
  std::string major = compiler.major ? " " + std::to_string(*compiler.major) : "";
  return family + major + " (" + compiler.real_path + ")";
}

}  // namespace gd
