#pragma once
// pyvenv.cfg, the file that makes a folder a virtual environment (PEP 405): `key = value`
// lines written by `python -m venv`, virtualenv and uv ("home = /usr/bin",
// "include-system-site-packages = false", "version = 3.12.3" or uv's "version_info = 3.12.8").

#include <optional>
#include <string>
#include <string_view>

namespace gd {

struct PyvenvConfig {
  std::string home;                   ///< the base interpreter's folder
  bool include_system_site = false;   ///< the base's site-packages are imported too
  std::string version;                ///< X.Y of the Python that made it ("" when not written)
};

/// Parses the text of a pyvenv.cfg. Keys are matched without regard to case and spaces around
/// '=' (site.py reads it the same way); unknown keys are ignored.
PyvenvConfig parse_pyvenv_cfg(std::string_view text);

/// "3.12" from "3.12.3", "3.12.8", "3.12"; nullopt when the text does not start with X.Y.
std::optional<std::string> python_major_minor(std::string_view version);

}  // namespace gd
