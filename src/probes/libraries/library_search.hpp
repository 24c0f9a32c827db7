#pragma once
// Which file the glibc dynamic loader maps for dlopen("libcuda.so.1") from a program without
// RPATH/RUNPATH (python, the CUDA runtime, gpudoctor's own helper): an object LD_PRELOAD
// already loaded, else the first usable file in LD_LIBRARY_PATH's folders, else the first
// ld.so.cache entry for this architecture, else the loader's built-in system folders
// (glibc elf/dl-load.c _dl_map_object; ld.so(8) "Shared library search path").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/libraries/ld_cache.hpp"
#include "probes/shared/library_file.hpp"
#include "sys/host.hpp"

namespace gd {

/// LD_LIBRARY_PATH split the way the loader does (fillin_rpath: on ':' and ';'); empty
/// entries are kept (they stand for the current folder).
std::vector<std::string> split_library_path(std::string_view value);

/// LD_PRELOAD split on blanks and ':' (elf/rtld.c handle_preload_list), empty entries dropped.
std::vector<std::string> split_preload(std::string_view value);

/// Why the loader's use of an LD_LIBRARY_PATH entry cannot be predicted, or "" when it can:
/// an empty or relative entry depends on the program's current folder, $ORIGIN/$LIB/$PLATFORM
/// on the program and the CPU.
std::string unpredictable_entry_reason(std::string_view entry);

/// The multiarch triplet of `arch` ("x86_64-linux-gnu"), empty when unknown.
std::string_view multiarch_triplet(std::string_view arch);

/// The loader's built-in folders. glibc compiles them in from slibdir and libdir (elf/Makefile
/// trusted-dirs): Debian/Ubuntu multiarch builds search /lib/<triplet>, /usr/lib/<triplet>,
/// /lib, /usr/lib (ld.so --help on Debian 12); other 64-bit builds /lib64, /usr/lib64.
std::vector<std::string> default_library_dirs(std::string_view arch, bool multiarch);

/// Everything the prediction needs, gathered by the probe.
struct SearchInputs {
  std::string arch;                          ///< uname machine
  std::vector<std::string> preload;          ///< LD_PRELOAD entries
  std::vector<std::string> library_path;     ///< LD_LIBRARY_PATH entries, as split
  const LdCache* cache = nullptr;            ///< null: no usable /etc/ld.so.cache
  std::string cache_problem;                 ///< the cache exists but could not be read (then unknown)
  std::vector<std::string> default_dirs;
};

enum class ResolvedVia { ld_preload, ld_library_path, ld_so_cache, default_dirs, none };

std::string_view to_string(ResolvedVia via);

struct Resolution {
  ResolvedVia via = ResolvedVia::none;
  std::optional<LibraryFile> file;      ///< the file the loader would map
  /// A file there that the loader cannot map: where it stops with an error (then `file` is empty),
  /// or the first it skipped when it finds nothing else; also a cut copy it maps anyway (= `file`).
  std::optional<LibraryFile> broken;
  std::vector<std::string> unchecked;   ///< LD_LIBRARY_PATH entries ahead of it that could not be evaluated
  std::string unknown_reason;           ///< non-empty: the result cannot be told (cache unreadable, ...)
};

/// Predicts the file the loader maps for `soname` ("libcuda.so.1") of library `stem`
/// ("libcuda.so"). Files of another ELF class or machine, and files it cannot open, are skipped,
/// as open_verify() does; an empty, non-ELF or cut file ends the search with an error.
Resolution predict_library(Host& host, const SearchInputs& inputs, std::string_view soname, std::string_view stem);

}  // namespace gd
