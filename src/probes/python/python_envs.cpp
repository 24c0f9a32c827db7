#include "probes/python/python_envs.hpp"

#include <algorithm>
#include <cctype>
#include <deque>

#include "probes/shared/library_file.hpp"
#include "probes/python/python_metadata.hpp"
#include "probes/shared/account_files.hpp"
#include "probes/python/pyvenv_cfg.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_small_file = 64 * 1024;
constexpr std::size_t k_max_path_entries = 256;  // a PATH longer than this is not searched further

bool exists(Host& host, const std::string& path) { return host.stat(path).has_value(); }

bool is_dir(Host& host, const std::string& path) {
  auto st = host.stat(path);
  return st && st->kind == FileKind::directory;
}

std::string parent(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string last_part(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

/// The X.Y of the one lib/pythonX.Y folder under `prefix` (the newest when there are several).
std::string version_from_lib(Host& host, const std::string& prefix) {
  auto names = host.list_dir(join(prefix, "lib"));
  if (!names) return "";
  std::string best;
  for (const std::string& name : *names) {
    auto version = version_from_interpreter_name(name);
    if (!version) continue;
    auto minor = [](const std::string& v) { return std::stoi(v.substr(v.find('.') + 1)); };
    if (best.empty() || minor(*version) > minor(best)) best = *version;
  }
  return best;
}

/// Folders CPython puts on sys.path for installed packages of `prefix`, in its order. The system
/// interpreter of Debian and Ubuntu uses dist-packages (its site.py patch), Fedora and most
/// others site-packages under lib64 and lib; listing both is harmless because only existing
/// folders are kept.
std::vector<std::string> prefix_site_dirs(const std::string& prefix, const std::string& version) {
  const std::string py = "python" + version;
  if (prefix == "/usr") {
    return {"/usr/local/lib64/" + py + "/site-packages", "/usr/local/lib/" + py + "/site-packages",
            "/usr/local/lib/" + py + "/dist-packages",   "/usr/lib/python3/dist-packages",
            "/usr/lib/" + py + "/dist-packages",         "/usr/lib64/" + py + "/site-packages",
            "/usr/lib/" + py + "/site-packages"};
  }
  return {join(prefix, "lib/" + py + "/site-packages"), join(prefix, "lib64/" + py + "/site-packages")};
}

void add_existing_dir(Host& host, const std::string& dir, std::vector<std::string>& out,
                      std::vector<std::string>& seen_real) {
  if (!is_dir(host, dir)) return;
  std::string real = canonical_path(host, dir);  // lib64 is often a link to lib
  if (std::find(seen_real.begin(), seen_real.end(), real) != seen_real.end()) return;
  seen_real.push_back(real);
  out.push_back(dir);
}

struct EnvBuild {
  PythonEnv env;
  std::string base_prefix;  ///< venv with system site packages: the base interpreter's prefix
  bool system_site = false;
};

/// pyenv's shims are shell scripts that exec the selected version's interpreter: PYENV_VERSION,
/// else a .python-version file in the working folder or above it, else $PYENV_ROOT/version
/// (pyenv's documented order). The first name of a version list wins; "system" means the
/// interpreter pyenv would find after its shims, which is left to the next PATH entry.
std::optional<std::string> pyenv_target(Host& host, const std::string& interpreter) {
  std::string shims = parent(interpreter);
  if (last_part(shims) != "shims") return std::nullopt;
  std::string root = parent(shims);
  if (!is_dir(host, join(root, "versions"))) return std::nullopt;
  std::string version;
  if (auto chosen = host.env("PYENV_VERSION")) version = *chosen;
  if (version.empty()) {
    if (auto cwd = host.working_dir()) {
      for (std::string dir = *cwd; version.empty(); dir = parent(dir)) {
        if (auto text = host.read_file(join(dir, ".python-version"), k_small_file)) version = *text;
        if (dir == "/" || dir == ".") break;
      }
    }
  }
  if (version.empty()) {
    if (auto text = host.read_file(join(root, "version"), k_small_file)) version = *text;
  }
  auto lines = split_nonempty_lines(version);
  auto words = lines.empty() ? std::vector<std::string_view>{} : split_words(lines.front());
  if (words.empty() || words.front() == "system") return std::nullopt;
  return join(root, "versions/" + std::string(words.front()) + "/bin/" + last_part(interpreter));
}

std::optional<EnvBuild> env_for_interpreter(Host& host, const std::string& given, std::string via) {
  std::string interpreter = pyenv_target(host, given).value_or(given);
  if (!exists(host, interpreter)) return std::nullopt;
  EnvBuild build;
  build.env.interpreter = interpreter;
  build.env.found_via = std::move(via);
  std::string prefix = parent(parent(interpreter));
  std::string real = canonical_path(host, interpreter);
  auto cfg_text = host.read_file(join(prefix, "pyvenv.cfg"), k_small_file);
  if (cfg_text) {
    // A venv's python is a link to the base interpreter: the venv is where the link is, not
    // where it leads (site.py looks for pyvenv.cfg next to or above the executable).
    PyvenvConfig cfg = parse_pyvenv_cfg(*cfg_text);
    build.env.prefix = prefix;
    build.env.kind = "venv";
    build.env.version = cfg.version;
    build.system_site = cfg.include_system_site;
    // home is the base interpreter's folder (/usr/bin, uv's .../cpython-3.12.8-linux-x86_64-gnu/bin).
    if (cfg.home.starts_with("/")) build.base_prefix = parent(parent(canonical_path(host, join(cfg.home, "python3"))));
  } else if (exists(host, join(prefix, "conda-meta"))) {
    build.env.prefix = prefix;
    build.env.kind = "conda";
  } else {
    std::string real_prefix = parent(parent(real));
    build.env.prefix = real_prefix;
    build.env.kind = exists(host, join(real_prefix, "conda-meta")) ? "conda" : "system";
  }
  if (build.env.version.empty()) {
    build.env.version = version_from_interpreter_name(last_part(real)).value_or("");
  }
  if (build.env.version.empty()) build.env.version = version_from_lib(host, build.env.prefix);
  return build;
}

std::optional<EnvBuild> env_for_prefix(Host& host, const std::string& prefix, std::string via) {
  for (const char* name : {"bin/python3", "bin/python"}) {
    if (auto build = env_for_interpreter(host, join(prefix, name), via)) return build;
  }
  // Only a versioned interpreter (bin/python3.12): what some images keep after a slimming step.
  if (auto names = host.list_dir(join(prefix, "bin"))) {
    for (const std::string& name : *names) {
      if (!version_from_interpreter_name(name)) continue;
      if (auto build = env_for_interpreter(host, join(prefix, "bin/" + name), via)) return build;
    }
  }
  return std::nullopt;
}

void fill_site_dirs(Host& host, EnvBuild& build, const std::optional<std::string>& home) {
  PythonEnv& env = build.env;
  if (env.version.empty()) return;  // without X.Y the folders cannot be named
  std::vector<std::string> seen;
  if (auto pythonpath = host.env("PYTHONPATH")) {
    for (std::string_view entry : split_nonempty(*pythonpath, ':')) {
      if (entry.starts_with("/")) add_existing_dir(host, std::string(entry), env.site_dirs, seen);
    }
  }
  // site.py: an isolated venv turns the user site off; PYTHONNOUSERSITE does too. A venv's own
  // site-packages come before the user site ("venv takes precedence over user-site", site.venv),
  // which comes before every other prefix's: a conda environment's, the system's, and the base
  // interpreter's of a venv made with --system-site-packages.
  env.user_site = (env.kind != "venv" || build.system_site) && home && !host.env("PYTHONNOUSERSITE");
  if (env.kind == "venv") {
    for (const std::string& dir : prefix_site_dirs(env.prefix, env.version)) add_existing_dir(host, dir, env.site_dirs, seen);
  }
  if (env.user_site) {
    add_existing_dir(host, join(*home, ".local/lib/python" + env.version + "/site-packages"), env.site_dirs, seen);
  }
  if (env.kind != "venv") {
    for (const std::string& dir : prefix_site_dirs(env.prefix, env.version)) add_existing_dir(host, dir, env.site_dirs, seen);
  }
  if (env.kind == "venv" && build.system_site && !build.base_prefix.empty()) {
    for (const std::string& dir : prefix_site_dirs(build.base_prefix, env.version)) {
      add_existing_dir(host, dir, env.site_dirs, seen);
    }
  }
}

/// The first `name` in PATH's folders, as the shell would find it.
std::optional<std::string> find_on_path(Host& host, std::string_view path_value, std::string_view name) {
  std::size_t count = 0;
  for (std::string_view dir : split_nonempty(path_value, ':')) {
    if (++count > k_max_path_entries) break;
    if (!dir.starts_with("/")) continue;  // relative entries depend on the caller's folder
    std::string candidate = join(dir, name);
    auto st = host.stat(candidate);
    if (st && st->kind == FileKind::regular && (st->mode & 0111) != 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> version_from_interpreter_name(std::string_view name) {
  if (!name.starts_with("python")) return std::nullopt;
  std::string_view rest = name.substr(6);
  auto version = python_major_minor(rest);
  if (!version) return std::nullopt;
  std::string_view tail = rest.substr(version->size());
  if (!tail.empty() && tail != "t" && tail != "m") return std::nullopt;  // python3.12-config and the like
  return version;
}

PythonDiscovery discover_python(Host& host, const std::string& python_option) {
  PythonDiscovery out;
  std::optional<std::string> home = home_folder(host);
  std::vector<EnvBuild> builds;
  auto add = [&](std::optional<EnvBuild> build) {
    if (!build) return;
    for (const EnvBuild& known : builds) {
      if (known.env.prefix == build->env.prefix) return;
    }
    builds.push_back(std::move(*build));
  };

  if (!python_option.empty()) {
    add(is_dir(host, python_option) ? env_for_prefix(host, python_option, "--python")
                                    : env_for_interpreter(host, python_option, "--python"));
  }
  if (auto path_value = host.env("PATH")) {
    for (const char* name : {"python3", "python"}) {
      if (auto found = find_on_path(host, *path_value, name)) {
        out.interpreters.push_back(*found + " -> " + canonical_path(host, *found));
        add(env_for_interpreter(host, *found, "PATH"));
      }
    }
  }
  if (auto venv = host.env("VIRTUAL_ENV"); venv && venv->starts_with("/")) add(env_for_prefix(host, *venv, "VIRTUAL_ENV"));
  if (auto conda = host.env("CONDA_PREFIX"); conda && conda->starts_with("/")) {
    add(env_for_prefix(host, *conda, "CONDA_PREFIX"));
  }
  if (auto cwd = host.working_dir()) add(env_for_prefix(host, join(*cwd, ".venv"), "./.venv"));
  if (home) {
    if (auto listed = host.read_file(join(*home, ".conda/environments.txt"), k_small_file)) {
      for (std::string_view line : split_nonempty_lines(*listed)) {
        if (line.starts_with("/")) add(env_for_prefix(host, std::string(line), "environments.txt"));
      }
    }
  }
  for (EnvBuild& build : builds) {
    fill_site_dirs(host, build, home);
    out.envs.push_back(build.env);
  }
  if (!out.envs.empty()) out.chosen = out.envs.front();
  return out;
}

namespace {

// Folders the search never enters: caches, sources of other languages, conda's package cache
// (/opt/conda/pkgs holds an unpacked copy of every package ever installed).
constexpr std::string_view k_search_skip[] = {"__pycache__", "node_modules", ".git", ".cache", "pkgs",
                                              "include",     "share",        "man",  "doc",    "proc"};

// Names that are files in every image (libraries, sources, data): not looked at, so that a folder
// of thousands of them costs one listing and no stat each.
bool looks_like_file(std::string_view name) {
  constexpr std::string_view k_suffixes[] = {".py",  ".pyc", ".txt", ".json", ".md",  ".h",   ".hpp", ".a",   ".o",
                                             ".js",  ".html", ".png", ".jpg", ".gz", ".zip", ".tar", ".whl", ".log",
                                             ".csv", ".pt",   ".bin", ".safetensors", ".npy", ".npz", ".yaml", ".yml",
                                             ".sh",  ".cfg",  ".ini", ".toml", ".so"};
  for (std::string_view suffix : k_suffixes) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
  }
  return name.find(".so.") != std::string_view::npos;  // libcudart.so.12
}

bool is_site_folder(std::string_view path) {
  // .../lib/python3.12/site-packages, .../lib64/python3.12/dist-packages, .../lib/python3/dist-packages
  std::string name = last_part(path);
  if (name != "site-packages" && name != "dist-packages") return false;
  std::string up = parent(path);
  std::string python = last_part(up);
  std::string lib = last_part(parent(up));
  return (python == "python3" || version_from_interpreter_name(python)) && (lib == "lib" || lib == "lib64");
}

struct Searcher {
  Host& host;
  const ImageSearchLimits& limits;
  std::optional<std::string> home;
  ImageSearch out;
  std::vector<std::string> known_prefixes;  // canonical
  std::size_t entries = 0;

  bool budget_left() {
    if (out.dirs_listed >= limits.max_dirs || entries >= limits.max_entries) {
      out.truncated = true;
      return false;
    }
    return true;
  }

  bool room() {
    if (out.envs.size() + out.bare_sites.size() >= limits.max_found) {
      out.truncated = true;
      return false;
    }
    return true;
  }

  bool known(const std::string& prefix) {
    std::string real = canonical_path(host, prefix);
    if (std::find(known_prefixes.begin(), known_prefixes.end(), real) != known_prefixes.end()) return true;
    known_prefixes.push_back(real);
    return false;
  }

  /// A venv or conda environment at `dir`: recorded (when new) and true; false when `dir` is not one.
  bool environment_at(const std::string& dir, const std::string& via) {
    bool venv = host.stat(join(dir, "pyvenv.cfg")).has_value();
    bool conda = !venv && is_dir(host, join(dir, "conda-meta"));
    if (!venv && !conda) return false;
    auto build = env_for_prefix(host, dir, via);
    if (build && !known(build->env.prefix) && room()) {
      fill_site_dirs(host, *build, home);
      out.envs.push_back(build->env);
    }
    if (conda && build) {  // a conda installation's named environments: /opt/conda/envs/NAME
      if (auto names = host.list_dir(join(dir, "envs"))) {
        ++out.dirs_listed;
        for (const std::string& name : *names) {
          if (!budget_left()) break;
          ++entries;
          std::string child = join(dir, "envs/" + name);
          auto st = host.lstat(child);
          if (st && st->kind == FileKind::directory) environment_at(child, via);
        }
      }
    }
    return build.has_value();  // without an interpreter, its site folders are searched as bare ones
  }

  void search(std::string_view root) {
    const std::string via = "found by searching " + std::string(root);
    std::deque<std::pair<std::string, int>> queue{{std::string(root), 0}};
    while (!queue.empty() && budget_left()) {
      auto [dir, depth] = queue.front();
      queue.pop_front();
      if (is_site_folder(dir)) {
        if (room()) {
          PythonEnv site;
          site.prefix = parent(parent(parent(dir)));
          site.kind = "site-packages";
          site.version = version_from_interpreter_name(last_part(parent(dir))).value_or("");
          site.found_via = via;
          site.site_dirs = {dir};
          out.bare_sites.push_back(std::move(site));
        }
        continue;
      }
      if (depth > 0 && environment_at(dir, via)) continue;
      if (depth >= limits.max_depth) continue;
      auto names = host.list_dir(dir);
      ++out.dirs_listed;
      if (!names) continue;
      for (const std::string& name : *names) {
        if (std::find(std::begin(k_search_skip), std::end(k_search_skip), name) != std::end(k_search_skip)) continue;
        if (looks_like_file(name)) continue;
        if (!budget_left()) break;
        ++entries;
        std::string child = join(dir, name);
        auto st = host.lstat(child);  // links are not followed: no loops, no leaving the folder
        if (st && st->kind == FileKind::directory) queue.emplace_back(child, depth + 1);
      }
    }
  }
};

}  // namespace

ImageSearch search_image_python(Host& host, const std::vector<PythonEnv>& known, const ImageSearchLimits& limits) {
  Searcher searcher{host, limits, home_folder(host), {}, {}, 0};
  for (const PythonEnv& env : known) searcher.known_prefixes.push_back(canonical_path(host, env.prefix));
  for (std::string_view root : k_image_search_roots) {
    if (is_dir(host, std::string(root))) searcher.search(root);
  }
  // A site folder that an environment found imports is that environment's, not a bare one.
  std::vector<std::string> imported;
  for (const std::vector<PythonEnv>* list : {&known, static_cast<const std::vector<PythonEnv>*>(&searcher.out.envs)}) {
    for (const PythonEnv& env : *list) {
      for (const std::string& dir : env.site_dirs) imported.push_back(canonical_path(host, dir));
    }
  }
  std::erase_if(searcher.out.bare_sites, [&](const PythonEnv& site) {
    return std::find(imported.begin(), imported.end(), canonical_path(host, site.site_dirs.front())) != imported.end();
  });
  return std::move(searcher.out);
}

std::vector<std::string> ml_packages(Host& host, const std::vector<std::string>& site_dirs) {
  constexpr std::string_view k_packages[] = {"torch", "jax", "jaxlib", "tensorflow", "triton", "cupy"};
  std::vector<std::string> out;
  std::vector<std::string_view> seen;
  for (const std::string& dir : site_dirs) {
    auto names = host.list_dir(dir);
    if (!names) continue;
    for (std::string_view package : k_packages) {
      if (std::find(seen.begin(), seen.end(), package) != seen.end()) continue;
      // The package's folder (cupy: also a cupy-cudaNNx wheel's .dist-info without it).
      bool present = false;
      std::string version;
      for (const std::string& name : *names) {
        if (name == package) present = true;
        const std::string dist_prefix = std::string(package) + (package == "cupy" ? "" : "-");
        if (name.starts_with(dist_prefix) && name.ends_with(".dist-info")) {
          if (package == "cupy") present = true;
          std::size_t dash = name.find('-');
          if (dash != std::string::npos) version = name.substr(dash + 1, name.size() - dash - 1 - 10);
        }
      }
      if (!present) continue;
      if (package == "torch") {
        if (auto text = host.read_file(join(dir, "torch/version.py"), k_small_file)) {
          if (auto info = parse_torch_version_py(*text)) version = info->version;
        }
      }
      seen.push_back(package);
      out.push_back(version.empty() ? std::string(package) : std::string(package) + " " + version);
    }
  }
  return out;
}

}  // namespace gd
