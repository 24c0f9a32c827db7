#include "probes/libraries/libraries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>
#include <set>

#include "core/fact_key.hpp"
#include "probes/libraries/ld_cache.hpp"
#include "probes/libraries/ld_so_conf.hpp"
#include "probes/shared/library_file.hpp"
#include "probes/libraries/library_search.hpp"

namespace gd {
namespace {

constexpr std::string_view k_ld_so_cache = "/etc/ld.so.cache";
constexpr std::string_view k_ld_so_conf = "/etc/ld.so.conf";
constexpr std::string_view k_nixos_driver_dir = "/run/opengl-driver/lib";  // NixOS hardware.graphics
constexpr std::string_view k_wsl_lib_dir = "/usr/lib/wsl/lib";             // WSL2: the Windows driver's libcuda
constexpr std::size_t k_max_cache_bytes = 16 << 20;  // real caches are 50 KiB to a few MiB
constexpr std::size_t k_max_scan_dirs = 64;           // folders listed for copies
constexpr std::size_t k_max_names_per_dir = 64;       // libcuda*/libnvidia-ml*/libcudart* names in one folder
constexpr std::size_t k_max_listed_entries = 64;      // lib.ldcache.entries: real caches have 2 to 10
constexpr std::string_view k_src_search = "loader search: LD_PRELOAD, LD_LIBRARY_PATH, /etc/ld.so.cache, default folders";

/// The libraries whose copies are listed; the first two are driver libraries (driver versions).
struct Library {
  std::string_view stem;     // file names start with this
  std::string_view soname;   // what programs dlopen
  std::string_view fact;     // fact prefix
  bool driver;               // versions are driver releases (580.159.04)
};
constexpr std::array<Library, 3> k_libraries = {{
    {"libcuda.so", "libcuda.so.1", "lib.libcuda", true},                // CUDA driver API (the driver's user space)
    {"libnvidia-ml.so", "libnvidia-ml.so.1", "lib.libnvidia_ml", true},  // NVML, same driver package
    {"libcudart.so", "", "lib.libcudart", false},                       // CUDA runtime (toolkit, wheels): listed only
}};

struct ScanDir {
  std::string origin;  // where the folder is on the search path from
  std::string dir;     // as named
};

/// -1, 0, 1 for dotted numeric versions (580.65.06 < 580.159.04); nullopt when not numeric.
std::optional<int> compare_dotted(std::string_view a, std::string_view b) {
  auto next = [](std::string_view& s) -> std::optional<long long> {
    if (s.empty()) {
      return 0;
    }
    std::size_t dot = s.find('.');
    std::string_view part = s.substr(0, dot);
    s = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
    if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    return std::stoll(std::string(part));
  };
  while (!a.empty() || !b.empty()) {
    auto x = next(a);
    auto y = next(b);
    if (!x || !y) {
      return std::nullopt;
    }
    if (*x != *y) {
      return *x < *y ? -1 : 1;
    }
  }
  return 0;
}

std::optional<std::string> env_value(Host& host, const FactSet& facts, FactName fact, std::string_view variable) {
  if (const Fact* f = facts.find(fact)) {
    return f->state == FactState::present ? facts.get_string(fact) : std::nullopt;
  }
  return host.env(variable);  // the environment probe did not run (a probe tested alone)
}

struct CacheRead {
  std::optional<LdCache> cache;
  std::string problem;  // unreadable: prediction unknown
};

CacheRead read_cache(Host& host, FactSet& facts) {
  CacheRead out;
  std::string src(k_ld_so_cache);
  auto bytes = host.read_file(k_ld_so_cache, k_max_cache_bytes);
  if (!bytes) {
    if (bytes.error().code == ENOENT) {
      // The loader then goes straight to the default folders (musl hosts, NixOS, minimal images).
      facts.set("lib.ldcache.readable"_fact, false, src);
      for (FactName name : {"lib.ldcache.format"_fact, "lib.ldcache.generator"_fact, "lib.ldcache.entries"_fact}) {
        facts.set_absent(name, src, "no /etc/ld.so.cache");
      }
      return out;
    }
    out.problem = unreadable_reason(bytes.error(), host);
    for (FactName name : {"lib.ldcache.readable"_fact, "lib.ldcache.format"_fact, "lib.ldcache.generator"_fact, "lib.ldcache.entries"_fact}) {
      facts.set_unknown(name, out.problem, src);
    }
    return out;
  }
  auto parsed = parse_ld_cache(*bytes);
  bytes->clear();
  bytes->shrink_to_fit();
  if (!parsed && parsed.error().kind == LdCacheError::Kind::beyond_limits) {
    // Well-formed as far as it was read, but more than gpudoctor reads: the loader may still use
    // it, so what it would find is not known (never guessed from a part of the table).
    out.problem = "larger than gpudoctor reads: " + parsed.error().reason;
    for (FactName name : {"lib.ldcache.readable"_fact, "lib.ldcache.format"_fact, "lib.ldcache.generator"_fact, "lib.ldcache.entries"_fact}) {
      facts.set_unknown(name, out.problem, src);
    }
    return out;
  }
  if (!parsed) {
    // The loader ignores a cache it cannot parse, exactly like a missing one.
    facts.set("lib.ldcache.readable"_fact, false, src);
    for (FactName name : {"lib.ldcache.format"_fact, "lib.ldcache.generator"_fact, "lib.ldcache.entries"_fact}) {
      facts.set_unknown(name, "not a valid cache: " + parsed.error().reason, src);
    }
    return out;
  }
  facts.set("lib.ldcache.readable"_fact, true, src);
  facts.set("lib.ldcache.format"_fact, std::string(to_string(parsed->format)), src);
  if (parsed->generator.empty()) {
    facts.set_absent("lib.ldcache.generator"_fact, src, "the cache does not record its ldconfig");
  } else {
    facts.set("lib.ldcache.generator"_fact, parsed->generator, src);
  }
  std::vector<std::string> entries;
  std::size_t unlisted = 0;
  for (const LdCacheEntry& entry : parsed->entries) {
    for (const Library& lib : k_libraries) {
      if (!entry.key.starts_with(lib.stem)) continue;
      if (entries.size() >= k_max_listed_entries) {
        ++unlisted;
        continue;
      }
      std::string hwcaps = entry.hwcaps_subdir.empty() ? "" : ", hwcap: \"" + entry.hwcaps_subdir + "\"";
      entries.push_back(fmt::format("{} ({}{}) => {}", entry.key, ld_cache_flags_text(entry.flags), hwcaps, entry.value));
    }
  }
  if (unlisted > 0) entries.push_back(fmt::format("({} more entries for these libraries not listed)", unlisted));
  facts.set("lib.ldcache.entries"_fact, entries, src);
  out.cache = std::move(*parsed);
  return out;
}

/// A flag fact about a folder: true/false from stat, unknown when stat fails otherwise.
void set_dir_present(Host& host, FactSet& facts, FactName fact, std::string_view dir) {
  auto st = host.stat(dir);
  if (st) {
    facts.set(fact, st->kind == FileKind::directory, std::string(dir));
  } else if (st.error().code == ENOENT || st.error().code == ENOTDIR) {
    facts.set(fact, false, std::string(dir));
  } else {
    facts.set_unknown(fact, unreadable_reason(st.error(), host), std::string(dir));
  }
}

struct Inventory {
  std::vector<std::string> searched;                           // "origin dir"
  std::map<std::string_view, std::map<std::string, LibraryFile>> copies;  // stem -> real path -> file
  std::vector<std::string> broken_links;
};

void scan_dirs(Host& host, const std::vector<ScanDir>& dirs, std::string_view arch, Inventory& inv) {
  std::set<std::string> seen;
  for (const ScanDir& scan : dirs) {
    if (seen.size() >= k_max_scan_dirs) {
      break;
    }
    std::string canonical = canonical_path(host, scan.dir);
    if (!seen.insert(canonical).second) {
      continue;
    }
    auto names = host.list_dir(canonical);
    if (!names) {
      continue;  // not there, or unreadable: nothing the loader could take from it either
    }
    inv.searched.push_back(scan.origin + " " + scan.dir);
    std::size_t taken = 0;
    for (const std::string& name : *names) {
      for (const Library& lib : k_libraries) {
        if (!name.starts_with(lib.stem) || taken >= k_max_names_per_dir) {
          continue;
        }
        ++taken;
        LibraryFile file = inspect_library_file(host, canonical + "/" + name, lib.stem, lib.driver, arch);
        if (file.broken_link) {
          auto target = host.read_link(file.path);
          inv.broken_links.push_back(file.path + " -> " + (target ? *target : std::string("?")));
        } else if (file.exists) {
          inv.copies[lib.stem].try_emplace(file.real_path, std::move(file));
        }
      }
    }
  }
}

void set_resolution(FactSet& facts, const Library& lib, const Resolution& res, const FactSet& known) {
  std::string p(lib.fact);
  std::string src(k_src_search);
  auto all = {".resolved", ".resolved_real", ".resolved_version", ".resolved_via", ".resolved_is_stub",
              ".resolved_is_compat", ".resolved_vs_module"};
  auto declared = [&](std::string_view suffix) {
    // libnvidia-ml has a smaller set: no via/stub/compat/real facts.
    return lib.stem == "libcuda.so" || suffix == ".resolved" || suffix == ".resolved_version" ||
           suffix == ".resolved_vs_module";
  };
  if (!res.unknown_reason.empty()) {
    for (std::string_view suffix : all) {
      if (declared(suffix)) facts.set_unknown(FactName::unchecked(p + std::string(suffix)), res.unknown_reason, src);
    }
    return;
  }
  if (!res.file) {
    std::string why = res.broken ? fmt::format("{} is where the loader looks, but it cannot be loaded: {}", res.broken->path,
                                               res.broken->problem_text)
                                 : std::string(lib.soname) + " is in none of the folders the loader searches";
    for (std::string_view suffix : all) {
      if (!declared(suffix)) continue;
      if (suffix == ".resolved_via") {
        facts.set(FactName::unchecked(p + ".resolved_via"), std::string("none"), src);
      } else {
        facts.set_absent(FactName::unchecked(p + std::string(suffix)), src, why);
      }
    }
    return;
  }
  const LibraryFile& file = *res.file;
  facts.set(FactName::unchecked(p + ".resolved"), file.path, src);
  if (declared(".resolved_real")) {
    facts.set(FactName::unchecked(p + ".resolved_real"), file.real_path, src);
    facts.set(FactName::unchecked(p + ".resolved_via"), std::string(to_string(res.via)), src);
    facts.set(FactName::unchecked(p + ".resolved_is_stub"), file.is_stub, src);
    facts.set(FactName::unchecked(p + ".resolved_is_compat"), file.is_compat, src);
  }
  if (file.version.empty()) {
    std::string why = "the file name " + std::string(base_name(file.real_path)) + " carries no driver version";
    facts.set_unknown(FactName::unchecked(p + ".resolved_version"), why, file.real_path);
    facts.set_unknown(FactName::unchecked(p + ".resolved_vs_module"), why, file.real_path);
    return;
  }
  facts.set(FactName::unchecked(p + ".resolved_version"), file.version, file.real_path);
  const Fact* module = known.find("kmod.nvidia.version"_fact);
  const BuiltFactName vs(p + ".resolved_vs_module");  // lib.<library>.*: a named family the catalogue check cannot see
  if (!module || module->state == FactState::unknown) {
    facts.set_unknown(vs, module ? module->reason : "the kernel module's version is not known", src);
  } else if (module->state == FactState::absent) {
    facts.set_absent(vs, src, "no NVIDIA kernel module loaded");
  } else {
    auto cmp = compare_dotted(file.version, std::get<std::string>(module->value));
    if (!cmp) {
      facts.set_unknown(vs, "versions cannot be compared", src);
    } else {
      facts.set(vs, std::string(*cmp == 0 ? "same" : *cmp < 0 ? "older" : "newer"), src);
    }
  }
}

/// libcuda's PTX JIT compiler: only checked for loadability (libcuda dlopens it by soname, through
/// the same search), not listed.
constexpr Library k_ptx_jit = {"libnvidia-ptxjitcompiler.so", "libnvidia-ptxjitcompiler.so.1", "lib.libnvidia_ptxjitcompiler", true};

/// <prefix>.unloadable*: the file where the loader looks that it cannot map, if any.
void set_unloadable(FactSet& facts, std::string_view prefix, const Resolution& res) {
  std::string p(prefix);
  std::string src(k_src_search);
  auto names = {".unloadable", ".unloadable_path", ".unloadable_size", ".unloadable_text"};
  if (!res.unknown_reason.empty() && !res.broken) {
    for (std::string_view suffix : names) facts.set_unknown(FactName::unchecked(p + std::string(suffix)), res.unknown_reason, src);
    return;
  }
  if (!res.broken) {
    std::string why = res.file ? "the loader maps " + res.file->path : "no file of that name where the loader looks";
    for (std::string_view suffix : names) facts.set_absent(FactName::unchecked(p + std::string(suffix)), src, why);
    return;
  }
  const LibraryFile& file = *res.broken;
  std::string text = file.real_path == file.path ? file.problem_text
                                                 : fmt::format("{} (its links lead to {})", file.problem_text, file.real_path);
  facts.set(FactName::unchecked(p + ".unloadable"), std::string(to_string(file.problem)), file.real_path);
  facts.set(FactName::unchecked(p + ".unloadable_path"), file.path, file.real_path);
  facts.set(FactName::unchecked(p + ".unloadable_size"), static_cast<std::int64_t>(file.size), file.real_path);
  facts.set(FactName::unchecked(p + ".unloadable_text"), text, file.real_path);
}

void set_copies(FactSet& facts, const Library& lib, const Inventory& inv) {
  std::string p(lib.fact);
  std::vector<std::string> copies;
  std::set<std::string> versions;
  auto it = inv.copies.find(lib.stem);
  if (it != inv.copies.end()) {
    for (const auto& [real, file] : it->second) {
      copies.push_back(library_file_text(file));
      bool loadable = file.elf != ElfCheck::foreign && file.elf != ElfCheck::not_elf && loader_takes(file.problem) == LoaderTakes::maps;
      if (!file.version.empty() && !file.is_stub && !file.is_compat && loadable) {
        versions.insert(file.version);
      }
    }
  }
  std::string src = "folders in lib.search_dirs";
  facts.set(FactName::unchecked(p + ".copies"), copies, src);
  if (lib.stem == "libcuda.so") {
    facts.set(FactName::unchecked(p + ".versions"), std::vector<std::string>(versions.begin(), versions.end()), src);
    facts.set(FactName::unchecked(p + ".version_count"), static_cast<std::int64_t>(versions.size()), src);
  }
}

/// lib.libnccl.*: the loader's libnccl.so.2, for the nccl layer (probes/nccl), which reads these
/// facts rather than the loader's folders again.
void set_nccl_resolution(FactSet& facts, const Resolution& res) {
  const std::string src(k_src_search);
  if (!res.unknown_reason.empty()) {
    for (FactName name : {"lib.libnccl.resolved"_fact, "lib.libnccl.resolved_real"_fact, "lib.libnccl.resolved_via"_fact}) {
      facts.set_unknown(name, res.unknown_reason, src);
    }
    return;
  }
  if (!res.file) {
    std::string why = res.broken ? res.broken->path + " is where the loader looks, but it cannot be loaded: " + res.broken->problem_text
                                 : "libnccl.so.2 is in none of the folders the loader searches";
    facts.set_absent("lib.libnccl.resolved"_fact, src, why);
    facts.set_absent("lib.libnccl.resolved_real"_fact, src, why);
    facts.set("lib.libnccl.resolved_via"_fact, std::string("none"), src);
    return;
  }
  facts.set("lib.libnccl.resolved"_fact, res.file->path, src);
  facts.set("lib.libnccl.resolved_real"_fact, res.file->real_path, src);
  facts.set("lib.libnccl.resolved_via"_fact, std::string(to_string(res.via)), src);
}

}  // namespace

void probe_libraries(Host& host, const ProbeOptions&, FactSet& facts) {
  std::string arch = facts.get_string("host.arch"_fact).value_or(host.uname().machine);

  SearchInputs inputs;
  inputs.arch = arch;
  std::optional<std::string> llp = env_value(host, facts, "env.ld_library_path"_fact, "LD_LIBRARY_PATH");
  std::optional<std::string> preload = env_value(host, facts, "env.ld_preload"_fact, "LD_PRELOAD");
  if (llp) {
    inputs.library_path = split_library_path(*llp);
  }
  if (preload) {
    inputs.preload = split_preload(*preload);
  }
  CacheRead cache = read_cache(host, facts);
  inputs.cache = cache.cache ? &*cache.cache : nullptr;
  inputs.cache_problem = cache.problem;
  std::string_view triplet = multiarch_triplet(arch);
  bool multiarch = !triplet.empty() && (host.stat("/lib/" + std::string(triplet)) || host.stat("/usr/lib/" + std::string(triplet)));
  inputs.default_dirs = default_library_dirs(arch, multiarch);

  LdSoConf conf = read_ld_so_conf(host, k_ld_so_conf);
  if (conf.unreadable.empty()) {
    facts.set("lib.ld_so_conf.dirs"_fact, conf.dirs, std::string(k_ld_so_conf));
  } else {
    facts.set_unknown("lib.ld_so_conf.dirs"_fact, "cannot read " + conf.unreadable.front(), std::string(k_ld_so_conf));
  }

  // Folders that hold copies, in the loader's order, then the folders ldconfig would add and
  // the places NixOS and WSL2 keep the driver.
  std::vector<ScanDir> dirs;
  for (const std::string& entry : inputs.library_path) {
    if (unpredictable_entry_reason(entry).empty()) dirs.push_back({"LD_LIBRARY_PATH", entry});
  }
  if (inputs.cache) {
    // Each folder once, and no more than are listed at all: a cache may name one folder for
    // every entry, and each costs a path resolution.
    std::set<std::string_view> cache_dirs;
    for (const LdCacheEntry& entry : inputs.cache->entries) {
      if (cache_dirs.size() >= k_max_scan_dirs) break;
      std::size_t slash = entry.value.rfind('/');
      if (slash == std::string::npos || slash == 0) continue;
      std::string_view dir = std::string_view(entry.value).substr(0, slash);
      for (const Library& lib : k_libraries) {
        if (entry.key.starts_with(lib.stem) && cache_dirs.insert(dir).second) {
          dirs.push_back({"ld.so.cache", std::string(dir)});
        }
      }
    }
  }
  for (const std::string& dir : conf.dirs) dirs.push_back({"ld.so.conf", dir});
  for (const std::string& dir : inputs.default_dirs) dirs.push_back({"default", dir});
  dirs.push_back({"NixOS", std::string(k_nixos_driver_dir)});
  dirs.push_back({"WSL", std::string(k_wsl_lib_dir)});

  Inventory inv;
  scan_dirs(host, dirs, arch, inv);
  facts.set("lib.search_dirs"_fact, inv.searched, std::string(k_src_search));
  for (const Library& lib : k_libraries) {
    set_copies(facts, lib, inv);
  }
  facts.set("lib.broken_links"_fact, inv.broken_links, "folders in lib.search_dirs");

  std::vector<std::string> unchecked;
  for (const Library& lib : k_libraries) {
    if (lib.soname.empty()) {
      continue;
    }
    Resolution res = predict_library(host, inputs, lib.soname, lib.stem);
    set_resolution(facts, lib, res, facts);
    set_unloadable(facts, lib.fact, res);
    if (lib.stem == "libcuda.so") {
      unchecked = res.unchecked;
    }
  }
  set_unloadable(facts, k_ptx_jit.fact, predict_library(host, inputs, k_ptx_jit.soname, k_ptx_jit.stem));
  set_nccl_resolution(facts, predict_library(host, inputs, "libnccl.so.2", "libnccl.so"));
  facts.set("lib.ld_library_path.unchecked"_fact, unchecked, "env:LD_LIBRARY_PATH");

  set_dir_present(host, facts, "lib.nixos.opengl_driver_present"_fact, k_nixos_driver_dir);
  set_dir_present(host, facts, "lib.wsl.present"_fact, k_wsl_lib_dir);
}

}  // namespace gd
