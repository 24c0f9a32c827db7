#include "probes/libraries/library_search.hpp"

#include <array>
#include <cerrno>

namespace gd {
namespace {

struct Triplet {
  std::string_view arch;
  std::string_view triplet;
};
// Debian multiarch tuples (https://wiki.debian.org/Multiarch/Tuples)
constexpr std::array<Triplet, 2> k_triplets = {{
    {"x86_64", "x86_64-linux-gnu"},
    {"aarch64", "aarch64-linux-gnu"},
}};

/// What the loader finds for `soname` in one place.
struct Found {
  LoaderTakes takes = LoaderTakes::skips;
  std::optional<LibraryFile> file;  ///< empty: nothing there
};

/// The file the loader would open for `soname` in `dir`, and what it does with it.
Found look_in(Host& host, const SearchInputs& inputs, std::string_view dir, std::string_view soname, std::string_view stem) {
  std::string path = std::string(dir);
  if (path.empty() || path.back() != '/') {
    path += '/';
  }
  path += soname;
  auto st = host.stat(path);
  if (!st || st->kind == FileKind::fifo || st->kind == FileKind::socket || st->kind == FileKind::other) {
    return {};  // ENOENT, a broken link: the loader tries the next place
  }
  LibraryFile file = inspect_library_file(host, path, stem, true, inputs.arch);
  LoaderTakes takes = loader_takes(file.problem);
  if (file.problem == LoadProblem::none && (file.elf == ElfCheck::foreign || file.elf == ElfCheck::not_elf)) {
    takes = LoaderTakes::skips;  // an architecture the check has no table row for
  }
  return {takes, std::move(file)};
}

/// Takes what one place gave: true when the search ends there.
bool settle(Found found, ResolvedVia via, Resolution& out) {
  if (!found.file) {
    return false;
  }
  switch (found.takes) {
    case LoaderTakes::maps:
      out.via = via;
      if (found.file->problem != LoadProblem::none) {
        out.broken = *found.file;
      } else {
        out.broken.reset();  // a copy skipped earlier no longer matters
      }
      out.file = std::move(found.file);
      return true;
    case LoaderTakes::fails:
      out.via = via;
      out.broken = std::move(found.file);
      return true;
    case LoaderTakes::skips:
      if (!out.broken && found.file->problem != LoadProblem::none) {
        out.broken = std::move(found.file);
      }
      return false;
  }
  return false;
}

}  // namespace

std::vector<std::string> split_library_path(std::string_view value) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t cut = value.find_first_of(":;", pos);
    out.emplace_back(value.substr(pos, cut == std::string_view::npos ? std::string_view::npos : cut - pos));
    if (cut == std::string_view::npos) {
      break;
    }
    pos = cut + 1;
  }
  return out;
}

std::vector<std::string> split_preload(std::string_view value) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < value.size()) {
    std::size_t cut = value.find_first_of(" :\t", pos);
    if (cut == std::string_view::npos) {
      cut = value.size();
    }
    if (cut > pos) {
      out.emplace_back(value.substr(pos, cut - pos));
    }
    pos = cut + 1;
  }
  return out;
}

std::string unpredictable_entry_reason(std::string_view entry) {
  if (entry.empty()) {
    return "an empty entry is the program's current folder";
  }
  if (entry.find('$') != std::string_view::npos) {
    return "$ORIGIN, $LIB and $PLATFORM depend on the program and the CPU";
  }
  if (!entry.starts_with("/")) {
    return "a relative entry depends on the program's current folder";
  }
  return "";
}

std::string_view multiarch_triplet(std::string_view arch) {
  for (const Triplet& t : k_triplets) {
    if (t.arch == arch) {
      return t.triplet;
    }
  }
  return "";
}

std::vector<std::string> default_library_dirs(std::string_view arch, bool multiarch) {
  std::string_view triplet = multiarch_triplet(arch);
  if (multiarch && !triplet.empty()) {
    return {"/lib/" + std::string(triplet), "/usr/lib/" + std::string(triplet), "/lib", "/usr/lib"};
  }
  return {"/lib64", "/usr/lib64"};
}

std::string_view to_string(ResolvedVia via) {
  switch (via) {
    case ResolvedVia::ld_preload: return "LD_PRELOAD";
    case ResolvedVia::ld_library_path: return "LD_LIBRARY_PATH";
    case ResolvedVia::ld_so_cache: return "ld.so.cache";
    case ResolvedVia::default_dirs: return "default";
    case ResolvedVia::none: return "none";
  }
  return "none";
}

Resolution predict_library(Host& host, const SearchInputs& inputs, std::string_view soname, std::string_view stem) {
  Resolution out;
  // 1. An object LD_PRELOAD mapped answers to its soname (_dl_name_match_p): a preloaded
  // libcuda.so.<anything> is what dlopen("libcuda.so.1") returns.
  for (const std::string& entry : inputs.preload) {
    if (entry.find('/') != std::string::npos && base_name(entry).starts_with(stem)) {
      LibraryFile file = inspect_library_file(host, entry, stem, true, inputs.arch);
      if (file.exists && file.elf != ElfCheck::foreign && file.elf != ElfCheck::not_elf) {
        out.via = ResolvedVia::ld_preload;
        out.file = std::move(file);
        return out;
      }
    }
  }
  // 2. LD_LIBRARY_PATH, in order. glibc also tries each folder's glibc-hwcaps/ and legacy
  // platform subfolders first; driver libraries are never installed there.
  for (const std::string& entry : inputs.library_path) {
    if (!unpredictable_entry_reason(entry).empty()) {
      out.unchecked.push_back(entry);
      continue;
    }
    if (settle(look_in(host, inputs, entry, soname, stem), ResolvedVia::ld_library_path, out)) {
      return out;
    }
  }
  // 3. ld.so.cache: only the first entry for this architecture counts; when its file is gone
  // (a stale cache) the loader goes on to the default folders.
  if (!inputs.cache_problem.empty()) {
    out.unknown_reason = "/etc/ld.so.cache could not be read: " + inputs.cache_problem;
    return out;
  }
  if (inputs.cache) {
    if (const LdCacheEntry* entry = ld_cache_lookup(*inputs.cache, soname, inputs.arch)) {
      std::string_view value = entry->value;
      std::size_t slash = value.rfind('/');
      if (slash != std::string_view::npos && base_name(value) == soname) {
        if (settle(look_in(host, inputs, value.substr(0, slash), soname, stem), ResolvedVia::ld_so_cache, out)) {
          return out;
        }
      } else if (host.stat(value)) {
        Found found{LoaderTakes::maps, inspect_library_file(host, std::string(value), stem, true, inputs.arch)};
        found.takes = loader_takes(found.file->problem);
        if (settle(std::move(found), ResolvedVia::ld_so_cache, out)) {
          return out;
        }
      }
    }
  }
  // 4. The loader's built-in folders.
  for (const std::string& dir : inputs.default_dirs) {
    if (settle(look_in(host, inputs, dir, soname, stem), ResolvedVia::default_dirs, out)) {
      return out;
    }
  }
  if (!out.unchecked.empty()) {
    out.unknown_reason = "not found in the folders checked, but LD_LIBRARY_PATH has entries that cannot be "
                         "checked from outside the program";
  }
  return out;
}

}  // namespace gd
