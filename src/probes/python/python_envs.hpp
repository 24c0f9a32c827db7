#pragma once
// Python environments on the host, found from files the way the interpreter itself would decide
// (CPython's site.py and getpath): which interpreter a plain `python3` runs, which prefix it
// belongs to (a venv, a conda environment or the system's), and the folders it imports installed
// packages from, in sys.path order. Nothing is executed.

#include <optional>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

struct PythonEnv {
  std::string prefix;       ///< sys.prefix: /opt/venv, /opt/conda/envs/x, /usr
  std::string kind;         ///< venv, conda or system
  std::string version;      ///< X.Y ("" when no file says it)
  std::string interpreter;  ///< the python3 it was found through ("" when found by its folder)
  std::string found_via;    ///< --python, PATH, VIRTUAL_ENV, CONDA_PREFIX, ./.venv, environments.txt,
                            ///< "found by searching /opt" (a pre-flight's search of the image)
  bool user_site = false;   ///< the user's ~/.local site-packages is imported (never in an isolated venv)
  std::vector<std::string> site_dirs;  ///< existing folders, in import order (PYTHONPATH first)
};

struct PythonDiscovery {
  std::vector<std::string> interpreters;  ///< "/usr/bin/python3 -> /usr/bin/python3.12"
  std::optional<PythonEnv> chosen;        ///< what a plain `python3` (or --python) would use
  std::vector<PythonEnv> envs;            ///< every environment found, the chosen one first
};

/// Finds the environments. `python_option` is --python (empty: none).
PythonDiscovery discover_python(Host& host, const std::string& python_option);

/// Where images put Python environments (issue 23): a pre-flight of an image without its
/// configuration does not know the image's PATH, and even with it a virtualenv under /opt may be
/// run by its full path. Searched to a bounded depth, never following links.
inline constexpr std::string_view k_image_search_roots[] = {"/opt", "/usr/local", "/root", "/home", "/workspace"};

struct ImageSearchLimits {
  int max_depth = 5;             ///< folders below a root: /home/user/project/lib/python3.12/site-packages is 5
  std::size_t max_dirs = 2000;   ///< folders listed, over all roots
  std::size_t max_entries = 20000;  ///< names stat'ed (not those that look like files), over all roots
  std::size_t max_found = 32;    ///< environments and site folders kept
};

struct ImageSearch {
  /// Virtualenvs (pyvenv.cfg and bin/python*) and conda environments (conda-meta/ and
  /// bin/python*) that `known` does not hold, found_via "found by searching ROOT", site_dirs filled.
  std::vector<PythonEnv> envs;
  /// lib/python3*/site-packages and dist-packages folders that no environment found imports
  /// (`known`'s or `envs`'): kind "site-packages", no interpreter, prefix the folder above lib/,
  /// site_dirs the one folder.
  std::vector<PythonEnv> bare_sites;
  bool truncated = false;  ///< a limit stopped the search
  std::size_t dirs_listed = 0;
};

/// Searches k_image_search_roots (all reads through `host`, bounded by `limits`).
ImageSearch search_image_python(Host& host, const std::vector<PythonEnv>& known, const ImageSearchLimits& limits = {});

/// The ML packages the folders hold, each once, from the first folder that has it, in this order:
/// torch, jax, jaxlib, tensorflow, triton, cupy ("torch 2.6.0+cu124", "jax 0.4.30"; the version
/// from torch/version.py or the package's .dist-info name, left out when neither says it).
std::vector<std::string> ml_packages(Host& host, const std::vector<std::string>& site_dirs);

/// "3.12" from an interpreter file name ("python3.12", "python3.12t"); nullopt otherwise.
std::optional<std::string> version_from_interpreter_name(std::string_view name);

}  // namespace gd
