#include "probes/python/python_envs.hpp"

#include <algorithm>
#include <cctype>

#include "probes/shared/library_file.hpp"
#include "probes/python/pyvenv_cfg.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_small_file = 64 * 1024;
constexpr std::size_t k_passwd_bytes = 4 << 20;
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

std::optional<std::string> home_folder(Host& host) {
  auto text = host.read_file("/etc/passwd", k_passwd_bytes);
  if (!text) return std::nullopt;
  const std::string uid = std::to_string(host.identity().uid);
  for (std::string_view line : split_nonempty_lines(*text)) {
    // name:password:uid:gid:gecos:home:shell
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (fields.size() < 7) {
      std::size_t colon = line.find(':', start);
      fields.push_back(line.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
      if (colon == std::string_view::npos) break;
      start = colon + 1;
    }
    if (fields.size() >= 6 && fields[2] == uid && fields[5].starts_with("/")) return std::string(fields[5]);
  }
  return std::nullopt;
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

}  // namespace gd
