#include "probes/toolkit/cuda_toolkits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/toolkit/cuda_version_file.hpp"
#include "probes/shared/library_file.hpp"
#include "probes/toolkit/nvcc_host_compiler.hpp"
#include "probes/toolkit/nvcc_host_config.hpp"
#include "probes/toolkit/path_search.hpp"
#include "sys/env_allowlist.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_version_json = 1 << 20;  // real ones are 3-6 KiB
constexpr std::size_t k_max_version_txt = 4096;      // one line
constexpr std::size_t k_cuda_h_head = 64 << 10;      // CUDA 13.0 defines CUDA_VERSION 14 KiB in
constexpr std::size_t k_max_host_config = 1 << 20;   // 12 KiB in CUDA 13.0
constexpr std::size_t k_max_cuda_dirs = 64;          // /usr/local/cuda-* folders looked into
constexpr std::string_view k_no_version = "no version file; nvcc is not run";
constexpr std::string_view k_usr_local = "/usr/local";
constexpr std::string_view k_usr_local_cuda = "/usr/local/cuda";
constexpr std::string_view k_opt_cuda = "/opt/cuda";  // Arch Linux's cuda package

bool is_missing(const IoError& error) { return error.code == ENOENT || error.code == ENOTDIR; }

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : std::string(separator)) + item;
  }
  return out;
}

void add_unique(std::vector<std::string>& items, std::string item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) {
    items.push_back(std::move(item));
  }
}

struct ToolkitVersion {
  std::string toolkit;  // the release: version.json "cuda", version.txt, cuda.h
  std::string nvcc;     // the compiler's: version.json "cuda_nvcc", conda-meta, dist-info
  std::string source;   // the file (and field) it came from
  std::string problem;  // a version source that exists but could not be read
  std::string best() const { return nvcc.empty() ? toolkit : nvcc; }
};

struct Toolkit {
  std::string root;              // real folder: the parent of the folder holding the real nvcc
  std::vector<std::string> via;  // how it was found
  std::vector<std::string> dirs; // root, then the folders (as named) that lead to it
  ToolkitVersion version;
};

struct Search {
  std::vector<Toolkit> toolkits;
  std::vector<std::string> problems;  // places that could not be looked into
};

Toolkit* find_toolkit(Search& search, std::string_view root) {
  for (Toolkit& toolkit : search.toolkits) {
    if (toolkit.root == root) {
      return &toolkit;
    }
  }
  return nullptr;
}

/// The toolkit of the nvcc at `nvcc`, reached through folder `dir`: its root is where the links
/// lead (/usr/local/cuda -> /usr/local/cuda-13.0), since nvcc finds its own files from there.
Toolkit& add_toolkit(Host& host, Search& search, const std::string& nvcc, const std::string& dir, std::string via) {
  std::string root = parent_folder(parent_folder(canonical_path(host, nvcc)));
  Toolkit* toolkit = find_toolkit(search, root);
  if (!toolkit) {
    toolkit = &search.toolkits.emplace_back(Toolkit{root, {}, {root}, {}});
  }
  add_unique(toolkit->via, std::move(via));
  add_unique(toolkit->dirs, dir);
  return *toolkit;
}

/// A toolkit when `dir`/bin/nvcc is a file.
void look_in(Host& host, Search& search, const std::string& dir, std::string via) {
  std::string nvcc = join_path(dir, "bin/nvcc");
  auto st = host.stat(nvcc);
  if (st) {
    if (st->kind == FileKind::regular) {
      add_toolkit(host, search, nvcc, dir, std::move(via));
    }
  } else if (!is_missing(st.error())) {
    search.problems.push_back(nvcc + ": " + unreadable_reason(st.error(), host));
  }
}

// ---- the version of one toolkit, from the first file that says it ----

using VersionSource = bool (*)(Host&, const std::string& dir, ToolkitVersion&);

void note_problem(ToolkitVersion& out, std::string problem) {
  if (out.problem.empty()) {
    out.problem = std::move(problem);
  }
}

/// Reads `path`; nullopt (and a problem when it exists but cannot be read) otherwise.
std::optional<std::string> read_source(Host& host, const std::string& path, std::size_t max_bytes,
                                       ToolkitVersion& out) {
  auto text = host.read_file(path, max_bytes);
  if (!text) {
    if (!is_missing(text.error())) {
      note_problem(out, path + ": " + unreadable_reason(text.error(), host));
    }
    return std::nullopt;
  }
  return std::move(*text);
}

bool from_version_json(Host& host, const std::string& dir, ToolkitVersion& out) {
  std::string path = join_path(dir, "version.json");
  auto text = read_source(host, path, k_max_version_json, out);
  if (!text) {
    return false;
  }
  auto parsed = parse_cuda_version_json(*text);
  if (!parsed) {
    note_problem(out, path + ": " + parsed.error());
    return false;
  }
  out.toolkit = parsed->toolkit;
  out.nvcc = parsed->nvcc;
  out.source = path + (out.nvcc.empty() ? " cuda" : " cuda_nvcc");
  return true;
}

bool from_version_txt(Host& host, const std::string& dir, ToolkitVersion& out) {
  std::string path = join_path(dir, "version.txt");
  auto text = read_source(host, path, k_max_version_txt, out);
  if (!text) {
    return false;
  }
  auto version = parse_cuda_version_txt(*text);
  if (!version) {
    note_problem(out, path + ": not \"CUDA Version X.Y.Z\"");
    return false;
  }
  out.toolkit = *version;
  out.source = path;
  return true;
}

/// The first name in folder `dir` that `version_of` accepts; the nvcc version and its path.
bool from_listing(Host& host, const std::string& dir, ToolkitVersion& out,
                  std::optional<std::string> (*version_of)(std::string_view)) {
  auto names = host.list_dir(dir);
  if (!names) {
    if (!is_missing(names.error())) {
      note_problem(out, dir + ": " + unreadable_reason(names.error(), host));
    }
    return false;
  }
  for (const std::string& name : *names) {
    if (auto version = version_of(name)) {
      out.nvcc = *version;
      out.source = join_path(dir, name);
      return true;
    }
  }
  return false;
}

/// conda's cuda-nvcc package records itself as conda-meta/cuda-nvcc-<version>-<build>.json.
bool from_conda_meta(Host& host, const std::string& dir, ToolkitVersion& out) {
  return from_listing(host, join_path(dir, "conda-meta"), out, conda_nvcc_version);
}

/// pip's nvidia-cuda-nvcc wheel: site-packages/nvidia/cu13 (or nvidia/cuda_nvcc) is the root and
/// its dist-info folder sits in site-packages; a toolkit assembled from wheels may keep the
/// dist-info folders in <root>/dist-info.
bool from_wheel(Host& host, const std::string& dir, ToolkitVersion& out) {
  if (from_listing(host, join_path(dir, "dist-info"), out, wheel_nvcc_version)) {
    return true;
  }
  std::string parent = parent_folder(dir);
  return base_name(parent) == "nvidia" && from_listing(host, parent_folder(parent), out, wheel_nvcc_version);
}

/// The last resort: the runtime header's CUDA_VERSION (major.minor only).
bool from_cuda_h(Host& host, const std::string& dir, ToolkitVersion& out) {
  std::string path = join_path(dir, "include/cuda.h");
  auto head = host.read_range(path, 0, k_cuda_h_head);
  if (!head) {
    if (!is_missing(head.error())) {
      note_problem(out, path + ": " + unreadable_reason(head.error(), host));
    }
    return false;
  }
  auto version = cuda_h_version(*head);
  if (!version) {
    return false;
  }
  out.toolkit = *version;
  out.source = path + " CUDA_VERSION";
  return true;
}

// In order of how much they say: both versions, the full release, nvcc's own package, the
// header's major.minor.
constexpr std::array<VersionSource, 5> k_version_sources = {from_version_json, from_version_txt, from_conda_meta,
                                                            from_wheel, from_cuda_h};

ToolkitVersion read_version(Host& host, const Toolkit& toolkit) {
  ToolkitVersion out;
  for (VersionSource source : k_version_sources) {
    for (const std::string& dir : toolkit.dirs) {
      if (source(host, dir, out)) {
        out.problem.clear();
        return out;
      }
    }
  }
  if (out.problem.empty()) {
    out.problem = std::string(k_no_version);
  }
  return out;
}

std::string toolkit_text(const Toolkit& toolkit) {
  std::string version = toolkit.version.best().empty() ? "unknown: " + toolkit.version.problem : toolkit.version.best();
  return fmt::format("{} {} ({})", toolkit.root, version, joined(toolkit.via, ", "));
}

// ---- which toolkit an extension build uses ----

struct BuildHome {
  std::string path;     // the folder torch uses as CUDA_HOME; empty: none
  std::string via;      // CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda
  std::string note;     // why there is none
  std::string problem;  // why it cannot be told
};

struct CudaEnv {
  std::optional<std::string> cuda_home;
  std::optional<std::string> cuda_path;
};

// The order of torch.utils.cpp_extension._find_cuda_home (pytorch/pytorch,
// torch/utils/cpp_extension.py, read at commit 0011ec5c): the value of CUDA_HOME, or of
// CUDA_PATH when CUDA_HOME is unset or empty (`environ.get('CUDA_HOME') or environ.get('CUDA_PATH')`);
// else the folder above the folder of shutil.which("nvcc"), links not followed; else
// /usr/local/cuda when it exists; else none. The variables are taken without checking the folder:
// the build runs <home>/bin/nvcc --version (_check_cuda_version) and fails when it is not there.
BuildHome choose_build_home(Host& host, const CudaEnv& env, const PathLookup& nvcc_on_path) {
  if (env.cuda_home && !env.cuda_home->empty()) {
    return {*env.cuda_home, "CUDA_HOME", {}, {}};
  }
  if (env.cuda_path) {
    if (env.cuda_path->empty()) {
      // `"" or ""` is "", not None: the guesses are skipped and CUDA_HOME ends up empty.
      return {{}, {}, "CUDA_PATH is set but empty: torch takes it and finds no CUDA", {}};
    }
    return {*env.cuda_path, "CUDA_PATH", {}, {}};
  }
  if (!nvcc_on_path.found.empty()) {
    return {parent_folder(parent_folder(nvcc_on_path.found)), "PATH", {}, {}};
  }
  if (!nvcc_on_path.problem.empty()) {
    return {{}, {}, {}, "PATH could not be searched for nvcc: " + nvcc_on_path.problem};
  }
  auto st = host.stat(k_usr_local_cuda);  // os.path.exists follows links
  if (st) {
    return {std::string(k_usr_local_cuda), std::string(k_usr_local_cuda), {}, {}};
  }
  if (!is_missing(st.error())) {
    return {{}, {}, {}, std::string(k_usr_local_cuda) + ": " + unreadable_reason(st.error(), host)};
  }
  return {{}, {}, "no CUDA_HOME, CUDA_PATH, nvcc on PATH or /usr/local/cuda", {}};
}

struct HostConfigLimit {
  std::optional<int> max_gcc_major;
  std::string source;
  std::string problem;
};

/// Where nvcc.profile points the includes: <root>/targets/<arch>-linux/include; older or
/// repackaged toolkits keep <root>/include.
std::vector<std::string> host_config_paths(std::string_view root, std::string_view arch) {
  std::vector<std::string> targets;
  if (arch == "aarch64") {
    targets = {"sbsa-linux", "aarch64-linux"};  // servers (Grace, GH200), then Jetson
  } else {
    targets = {std::string(arch) + "-linux"};
  }
  std::vector<std::string> paths;
  for (const std::string& target : targets) {
    paths.push_back(join_path(root, "targets/" + target + "/include/crt/host_config.h"));
  }
  paths.push_back(join_path(root, "include/crt/host_config.h"));
  return paths;
}

HostConfigLimit read_host_config(Host& host, std::string_view root, std::string_view arch) {
  for (const std::string& path : host_config_paths(root, arch)) {
    auto text = host.read_file(path, k_max_host_config);
    if (!text) {
      if (is_missing(text.error())) {
        continue;
      }
      return {std::nullopt, path, unreadable_reason(text.error(), host)};
    }
    if (auto limit = parse_max_gcc_major(*text)) {
      return {limit, path, {}};
    }
    return {std::nullopt, path, "no gcc version check (#if __GNUC__ > N ... #error) in it"};
  }
  return {std::nullopt, std::string(root), "no crt/host_config.h in the toolkit"};
}

// ---- the host compiler ----

/// An environment variable when the allowlist lets gpudoctor read it; the name is recorded
/// in `not_read` otherwise (it may be set, and change the answer).
std::optional<std::string> allowed_env(Host& host, std::string_view name, std::vector<std::string>& not_read) {
  if (!env_name_allowed(name)) {
    not_read.emplace_back(name);
    return std::nullopt;
  }
  return host.env(name);
}

// The compiler nvcc gets in an extension build: torch's BuildExtension adds `-ccbin $CC` when
// CC is set (unix_cuda_flags in torch/utils/cpp_extension.py); an explicit -ccbin wins over
// NVCC_CCBIN, the variable nvcc itself reads (its binary names it next to NVCC_PREPEND_FLAGS
// and NVCC_APPEND_FLAGS); without either, nvcc runs gcc from PATH. CUDAHOSTCXX belongs to
// CMake, not to nvcc, and is not used here.
HostCompiler find_build_compiler(Host& host, std::string_view path_value, std::string_view arch,
                                 std::vector<std::string>& not_read) {
  if (auto cc = allowed_env(host, "CC", not_read); cc && !cc->empty()) {
    return find_host_compiler(host, path_value, *cc, "CC", arch);
  }
  if (auto ccbin = allowed_env(host, "NVCC_CCBIN", not_read); ccbin && !ccbin->empty()) {
    return find_host_compiler(host, path_value, *ccbin, "NVCC_CCBIN", arch);
  }
  return find_host_compiler(host, path_value, "gcc", "PATH", arch);
}

// ---- facts ----

void set_search_facts(Search& search, FactSet& facts) {
  std::vector<std::string> list;
  for (const Toolkit& toolkit : search.toolkits) {
    list.push_back(toolkit_text(toolkit));
  }
  const std::string source = "PATH, CUDA_HOME, CUDA_PATH, CONDA_PREFIX, /usr/local/cuda, /usr/local/cuda-*, /opt/cuda";
  if (!search.problems.empty()) {
    // A toolkit may hide behind what could not be read: the list would be short, not complete.
    std::string reason = joined(search.problems, "; ") + (list.empty() ? "" : "; found: " + joined(list, ", "));
    facts.set_unknown("toolkit.list"_fact, reason, source);
    facts.set_unknown("toolkit.count"_fact, reason, source);
    return;
  }
  facts.set("toolkit.count"_fact, static_cast<std::int64_t>(list.size()), source);
  facts.set("toolkit.list"_fact, std::move(list), source);
}

constexpr std::array k_build_facts = {
    "toolkit.build.path"_fact,           "toolkit.build.via"_fact,           "toolkit.build.has_nvcc"_fact,
    "toolkit.build.root"_fact,           "toolkit.build.version"_fact,       "toolkit.build.host_compiler"_fact,
    "toolkit.build.host_compiler_major"_fact, "toolkit.build.max_gcc_major"_fact, "toolkit.build.host_compiler_unsupported"_fact,
};

void set_host_compiler_facts(const HostCompiler& compiler, const std::vector<std::string>& not_read,
                             const std::optional<HostConfigLimit>& limit, FactSet& facts) {
  std::string source = compiler.via == "PATH" ? "gcc on PATH" : compiler.via + "=" + compiler.requested;
  if (!not_read.empty()) {
    source += " (" + joined(not_read, " and ") + " not read: not on the environment allowlist)";
  }
  if (compiler.path.empty()) {
    if (!compiler.problem.empty()) {
      for (FactName name : {"toolkit.build.host_compiler"_fact, "toolkit.build.host_compiler_major"_fact,
                        "toolkit.build.host_compiler_unsupported"_fact}) {
        facts.set_unknown(name, compiler.problem, source);
      }
      return;
    }
    std::string note = compiler.requested + " not found";
    for (FactName name : {"toolkit.build.host_compiler"_fact, "toolkit.build.host_compiler_major"_fact,
                      "toolkit.build.host_compiler_unsupported"_fact}) {
      facts.set_absent(name, source, note);
    }
    return;
  }
  facts.set("toolkit.build.host_compiler"_fact, host_compiler_text(compiler), source);
  if (compiler.major) {
    facts.set("toolkit.build.host_compiler_major"_fact, static_cast<std::int64_t>(*compiler.major), compiler.real_path);
  } else {
    facts.set_unknown("toolkit.build.host_compiler_major"_fact, compiler.major_problem, compiler.real_path);
  }
  constexpr FactName unsupported = "toolkit.build.host_compiler_unsupported"_fact;
  if (!limit) {
    facts.set_absent(unsupported, source, "no nvcc in the build's toolkit");
  } else if (compiler.family != "gcc") {
    facts.set_unknown(unsupported, "not gcc: only the gcc limit of host_config.h is read", compiler.real_path);
  } else if (!compiler.major) {
    facts.set_unknown(unsupported, "gcc major unknown: " + compiler.major_problem, compiler.real_path);
  } else if (!limit->max_gcc_major) {
    facts.set_unknown(unsupported, "newest supported gcc unknown: " + limit->problem, limit->source);
  } else {
    facts.set(unsupported, *compiler.major > *limit->max_gcc_major,
              fmt::format("gcc {} against {} (gcc {} at most)", *compiler.major, limit->source, *limit->max_gcc_major));
  }
}

void set_build_facts(Host& host, Search& search, const BuildHome& home, std::string_view path_value,
                     std::string_view arch, FactSet& facts) {
  if (home.path.empty()) {
    for (FactName name : k_build_facts) {
      if (home.problem.empty()) {
        facts.set_absent(name, "torch.utils.cpp_extension CUDA_HOME search", home.note);
      } else {
        facts.set_unknown(name, home.problem, "torch.utils.cpp_extension CUDA_HOME search");
      }
    }
    return;
  }
  std::string via_source = home.via == "PATH" || home.via == k_usr_local_cuda ? home.via : "env:" + home.via;
  facts.set("toolkit.build.path"_fact, home.path, via_source);
  facts.set("toolkit.build.via"_fact, home.via, via_source);

  std::string nvcc = join_path(home.path, "bin/nvcc");
  std::optional<HostConfigLimit> limit;  // set when the build has an nvcc
  auto st = host.stat(nvcc);
  if (st && st->kind == FileKind::regular) {
    facts.set("toolkit.build.has_nvcc"_fact, true, nvcc);
    Toolkit& toolkit = add_toolkit(host, search, nvcc, home.path, home.via);
    if (toolkit.version.best().empty() && toolkit.version.problem.empty()) {
      toolkit.version = read_version(host, toolkit);  // not in the list (should not happen): read it now
    }
    facts.set("toolkit.build.root"_fact, toolkit.root, nvcc);
    if (!toolkit.version.best().empty()) {
      facts.set("toolkit.build.version"_fact, toolkit.version.best(), toolkit.version.source);
    } else {
      facts.set_unknown("toolkit.build.version"_fact, toolkit.version.problem, toolkit.root);
    }
    limit = read_host_config(host, toolkit.root, arch);
    if (limit->max_gcc_major) {
      facts.set("toolkit.build.max_gcc_major"_fact, static_cast<std::int64_t>(*limit->max_gcc_major), limit->source);
    } else {
      facts.set_unknown("toolkit.build.max_gcc_major"_fact, limit->problem, limit->source);
    }
  } else if (st || is_missing(st.error())) {
    std::string note = "no nvcc at " + nvcc + ": the build fails";
    facts.set("toolkit.build.has_nvcc"_fact, false, nvcc);
    for (FactName name : {"toolkit.build.root"_fact, "toolkit.build.version"_fact, "toolkit.build.max_gcc_major"_fact}) {
      facts.set_absent(name, nvcc, note);
    }
  } else {
    std::string reason = unreadable_reason(st.error(), host);
    for (FactName name : {"toolkit.build.has_nvcc"_fact, "toolkit.build.root"_fact, "toolkit.build.version"_fact,
                      "toolkit.build.max_gcc_major"_fact}) {
      facts.set_unknown(name, reason, nvcc);
    }
  }

  std::vector<std::string> not_read;
  HostCompiler compiler = find_build_compiler(host, path_value, arch, not_read);
  set_host_compiler_facts(compiler, not_read, limit, facts);
}

}  // namespace

void probe_cuda_toolkits(Host& host, const ProbeOptions&, FactSet& facts) {
  std::optional<std::string> path_env = host.env("PATH");
  std::string path_value = path_env.value_or(std::string(k_default_path));
  CudaEnv env{host.env("CUDA_HOME"), host.env("CUDA_PATH")};
  std::optional<std::string> conda_prefix = host.env("CONDA_PREFIX");
  std::string arch = facts.get_string("host.arch"_fact).value_or(host.uname().machine);

  // What the variables name.
  if (env.cuda_home && !env.cuda_home->empty()) {
    facts.set("toolkit.cuda_home"_fact, *env.cuda_home, "env:CUDA_HOME");
  } else if (env.cuda_path) {
    facts.set("toolkit.cuda_home"_fact, *env.cuda_path, "env:CUDA_PATH");
  } else {
    facts.set_absent("toolkit.cuda_home"_fact, "env:CUDA_HOME, env:CUDA_PATH");
  }
  PathLookup nvcc_on_path = find_on_path(host, path_value, "nvcc");
  std::string path_source = path_env ? "env:PATH" : "default PATH " + std::string(k_default_path);
  if (!nvcc_on_path.found.empty()) {
    facts.set("toolkit.nvcc_on_path"_fact, nvcc_on_path.found, path_source);
  } else if (!nvcc_on_path.problem.empty()) {
    facts.set_unknown("toolkit.nvcc_on_path"_fact, nvcc_on_path.problem, path_source);
  } else {
    facts.set_absent("toolkit.nvcc_on_path"_fact, path_source);
  }

  // Every toolkit, in the order an extension build would prefer them.
  Search search;
  if (env.cuda_home && !env.cuda_home->empty()) {
    look_in(host, search, *env.cuda_home, "CUDA_HOME");
  }
  if (env.cuda_path && !env.cuda_path->empty()) {
    look_in(host, search, *env.cuda_path, "CUDA_PATH");
  }
  if (!nvcc_on_path.found.empty()) {
    add_toolkit(host, search, nvcc_on_path.found, parent_folder(parent_folder(nvcc_on_path.found)), "PATH");
  } else if (!nvcc_on_path.problem.empty()) {
    search.problems.push_back(nvcc_on_path.problem);
  }
  look_in(host, search, std::string(k_usr_local_cuda), std::string(k_usr_local_cuda));
  if (conda_prefix && !conda_prefix->empty()) {
    look_in(host, search, *conda_prefix, "CONDA_PREFIX");  // conda's cuda-nvcc: $CONDA_PREFIX/bin/nvcc
  }
  auto names = host.list_dir(k_usr_local);
  if (names) {
    std::size_t looked = 0;
    for (const std::string& name : *names) {
      if (name.starts_with("cuda-") && looked++ < k_max_cuda_dirs) {
        look_in(host, search, join_path(k_usr_local, name), "/usr/local/cuda-*");
      }
    }
  } else if (!is_missing(names.error())) {
    search.problems.push_back(std::string(k_usr_local) + ": " + unreadable_reason(names.error(), host));
  }
  look_in(host, search, std::string(k_opt_cuda), std::string(k_opt_cuda));
  for (Toolkit& toolkit : search.toolkits) {
    toolkit.version = read_version(host, toolkit);
  }

  BuildHome home = choose_build_home(host, env, nvcc_on_path);
  set_build_facts(host, search, home, path_value, arch, facts);
  set_search_facts(search, facts);
}

}  // namespace gd
