#pragma once
// Python environments on the host, found from files the way the interpreter itself would decide
// (CPython's site.py and getpath): which interpreter a plain `python3` runs, which prefix it
// belongs to (a venv, a conda environment or the system's), and the folders it imports installed
// packages from, in sys.path order. Nothing is executed.

#include <optional>
#include <string>
#include <vector>

#include "sys/host.hpp"

namespace gd {

struct PythonEnv {
  std::string prefix;       ///< sys.prefix: /opt/venv, /opt/conda/envs/x, /usr
  std::string kind;         ///< venv, conda or system
  std::string version;      ///< X.Y ("" when no file says it)
  std::string interpreter;  ///< the python3 it was found through ("" when found by its folder)
  std::string found_via;    ///< --python, PATH, VIRTUAL_ENV, CONDA_PREFIX, ./.venv, environments.txt
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

/// The user's home folder from /etc/passwd (uid of the run); nullopt when not listed.
std::optional<std::string> home_folder(Host& host);

/// "3.12" from an interpreter file name ("python3.12", "python3.12t"); nullopt otherwise.
std::optional<std::string> version_from_interpreter_name(std::string_view name);

}  // namespace gd
