#pragma once
// What keeps a module from loading or changes how it loads: modprobe.d(5) files
// (blacklist, install, alias ... off, options) and the kernel command line
// (modprobe.blacklist=, module_blacklist=, rd.driver.blacklist=).

#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// One directive of a modprobe.d file that concerns us.
struct ModprobeDirective {
  enum class Kind { blacklist, install_disabled, alias_off, options };
  Kind kind = Kind::blacklist;
  std::string module;  ///< with '-' turned into '_' (modprobe treats them alike)
  std::string text;    ///< the rest: the options, or the install command
  int line = 0;        ///< 1-based line where the directive starts
};

/// Parses a modprobe.d file (modprobe.d(5): one command per line, '#' comments, a '\' at the end
/// of a line continues it). Returns blacklist, options, "alias <module> off" and the install
/// commands that cannot load the module (/bin/false, /bin/true, ... without a modprobe of it).
std::vector<ModprobeDirective> parse_modprobe_conf(std::string_view text);

/// The modules that the kernel command line keeps from loading: modprobe.blacklist=a,b
/// (kmod), module_blacklist=a,b (the kernel itself) and rd.driver.blacklist=a,b (dracut).
std::vector<std::string> cmdline_blacklisted_modules(std::string_view cmdline);

/// modprobe.nvidia_blacklisted, modprobe.nouveau_blacklisted, modprobe.blacklist_entries,
/// modprobe.nvidia_options.
void record_modprobe_config(Host& host, FactSet& facts);

}  // namespace gd
