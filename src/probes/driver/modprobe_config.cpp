#include "probes/driver/modprobe_config.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <algorithm>
#include <cerrno>
#include <map>

namespace gd {
namespace {

// modprobe.d(5) (kmod 30+): files with the same name in an earlier folder replace those of later
// ones; all files are then read in the order of their names.
constexpr std::string_view k_conf_dirs[] = {
    "/etc/modprobe.d",            // the administrator's
    "/run/modprobe.d",            // generated at runtime
    "/usr/local/lib/modprobe.d",  // locally installed software
    "/usr/lib/modprobe.d",        // the distribution's packages
    "/lib/modprobe.d",            // the same on systems without a merged /usr
};
constexpr std::string_view k_cmdline = "/proc/cmdline";
constexpr std::size_t k_max_conf_file = 256 * 1024;
constexpr std::size_t k_max_conf_files = 512;
constexpr std::size_t k_max_entries = 64;

// Modules whose blacklisting matters here (the nvidia stack and the driver that competes with it).
constexpr std::string_view k_watched_modules[] = {"nvidia",         "nvidia_uvm",     "nvidia_drm",
                                                  "nvidia_modeset", "nvidia_peermem", "nouveau"};

std::string normalise_module(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::string rest_after(std::string_view line, std::string_view word) {
  std::size_t at = static_cast<std::size_t>(word.data() + word.size() - line.data());
  std::string_view rest = line.substr(at);
  std::size_t start = rest.find_first_not_of(" \t");
  return start == std::string_view::npos ? std::string() : std::string(rest.substr(start));
}

// An install command replaces the module's loading. It can still load it ("install nvidia
// /sbin/modprobe --ignore-install nvidia && ..."); anything that never runs modprobe/insmod
// for the module itself (the usual "install nvidia /bin/false") keeps it out.
bool install_disables(std::string_view command, std::string_view module) {
  bool loads_it =
      (command.find("modprobe") != std::string_view::npos || command.find("insmod") != std::string_view::npos) &&
      normalise_module(command).find(module) != std::string::npos;
  return !loads_it;
}

std::string_view kind_name(ModprobeDirective::Kind kind) {
  switch (kind) {
    case ModprobeDirective::Kind::blacklist:
      return "blacklist";
    case ModprobeDirective::Kind::install_disabled:
      return "install";
    case ModprobeDirective::Kind::alias_off:
      return "alias off";
    case ModprobeDirective::Kind::options:
      return "options";
  }
  return "?";
}

}  // namespace

std::vector<ModprobeDirective> parse_modprobe_conf(std::string_view text) {
  std::vector<ModprobeDirective> out;
  std::size_t pos = 0;
  int line_number = 0;
  while (pos < text.size()) {
    // Join continued lines ("...\" at the end).
    std::string line;
    int first_line = line_number + 1;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) {
        end = text.size();
      }
      std::string_view part = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_number;
      if (!part.empty() && part.back() == '\r') {
        part.remove_suffix(1);
      }
      if (!part.empty() && part.back() == '\\') {
        line.append(part.substr(0, part.size() - 1));
        line += ' ';
        continue;
      }
      line.append(part);
      break;
    }
    std::vector<std::string_view> words = split_words(line);
    if (words.size() < 2 || words[0].starts_with("#")) {
      continue;
    }
    ModprobeDirective directive;
    directive.line = first_line;
    directive.module = normalise_module(words[1]);
    if (words[0] == "blacklist") {
      directive.kind = ModprobeDirective::Kind::blacklist;
    } else if (words[0] == "options") {
      directive.kind = ModprobeDirective::Kind::options;
      directive.text = rest_after(line, words[1]);
    } else if (words[0] == "install") {
      directive.text = rest_after(line, words[1]);
      if (!install_disables(directive.text, directive.module)) {
        continue;
      }
      directive.kind = ModprobeDirective::Kind::install_disabled;
    } else if (words[0] == "alias" && words.size() >= 3 && words[2] == "off") {
      // "alias nouveau off": modprobe resolves the name to a module "off" that does not exist.
      directive.kind = ModprobeDirective::Kind::alias_off;
    } else {
      continue;
    }
    out.push_back(std::move(directive));
  }
  return out;
}

std::vector<std::string> cmdline_blacklisted_modules(std::string_view cmdline) {
  // Documentation/admin-guide/kernel-parameters.txt: module_blacklist=; modprobe(8):
  // modprobe.blacklist=; dracut.cmdline(7): rd.driver.blacklist=. Values are comma-separated
  // and the parameters may repeat.
  std::vector<std::string> out;
  for (std::string_view word : split_words(cmdline)) {
    if (!word.empty() && word.back() == '\n') {
      word.remove_suffix(1);
    }
    for (std::string_view key : {"modprobe.blacklist=", "module_blacklist=", "rd.driver.blacklist="}) {
      if (!word.starts_with(key)) {
        continue;
      }
      std::string_view value = word.substr(key.size());
      std::size_t start = 0;
      while (start <= value.size()) {
        std::size_t comma = value.find(',', start);
        std::string_view name =
            value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (!name.empty()) {
          out.push_back(normalise_module(name));
        }
        if (comma == std::string_view::npos) {
          break;
        }
        start = comma + 1;
      }
    }
  }
  return out;
}

void record_modprobe_config(Host& host, FactSet& facts) {
  // Which file of each name wins (the first folder that has it).
  std::map<std::string, std::string> files;
  std::string unreadable;
  for (std::string_view dir : k_conf_dirs) {
    auto names = host.list_dir(dir);
    if (!names) {
      if (names.error().code != ENOENT && names.error().code != ENOTDIR) {
        unreadable = std::string(dir) + ": " + unreadable_reason(names.error(), host);
      }
      continue;
    }
    for (const std::string& name : *names) {
      if (name.ends_with(".conf") && files.size() < k_max_conf_files) {
        files.try_emplace(name, std::string(dir) + "/" + name);
      }
    }
  }

  std::vector<std::string> entries;  // "nvidia blacklist /etc/modprobe.d/x.conf:3"
  std::vector<std::string> options;  // "NVreg_EnableGpuFirmware=0 (/etc/modprobe.d/nvidia.conf:2)"
  bool nvidia_blocked = false;
  bool nouveau_blocked = false;
  for (const auto& [name, path] : files) {
    auto text = host.read_file(path, k_max_conf_file);
    if (!text) {
      if (text.error().code != ENOENT) {  // a dangling link is no configuration
        unreadable = path + ": " + unreadable_reason(text.error(), host);
      }
      continue;
    }
    for (const ModprobeDirective& d : parse_modprobe_conf(*text)) {
      std::string where = path + ":" + std::to_string(d.line);
      if (d.kind == ModprobeDirective::Kind::options) {
        if (d.module == "nvidia" && options.size() < k_max_entries) {
          options.push_back(d.text + " (" + where + ")");
        }
        continue;
      }
      if (std::find(std::begin(k_watched_modules), std::end(k_watched_modules), d.module) ==
          std::end(k_watched_modules)) {
        continue;
      }
      nvidia_blocked = nvidia_blocked || d.module == "nvidia";
      nouveau_blocked = nouveau_blocked || d.module == "nouveau";
      if (entries.size() < k_max_entries) {
        entries.push_back(d.module + " " + std::string(kind_name(d.kind)) + " " + where);
      }
    }
  }

  auto cmdline = host.read_file(k_cmdline, 64 * 1024);
  if (cmdline) {
    for (const std::string& module : cmdline_blacklisted_modules(*cmdline)) {
      if (std::find(std::begin(k_watched_modules), std::end(k_watched_modules), module) ==
          std::end(k_watched_modules)) {
        continue;
      }
      nvidia_blocked = nvidia_blocked || module == "nvidia";
      nouveau_blocked = nouveau_blocked || module == "nouveau";
      if (entries.size() < k_max_entries) {
        entries.push_back(module + " blacklist /proc/cmdline");
      }
    }
  } else if (cmdline.error().code != ENOENT) {
    unreadable = std::string(k_cmdline) + ": " + unreadable_reason(cmdline.error(), host);
  }

  const std::string source = "/etc/modprobe.d, /run/modprobe.d, /usr/lib/modprobe.d, /proc/cmdline";
  facts.set("modprobe.blacklist_entries"_fact, entries, source);
  facts.set("modprobe.nvidia_options"_fact, options, source);
  // A blacklist that was seen is certain; "not blacklisted" is only certain when every file
  // could be read.
  auto verdict = [&](FactName fact, bool blocked) {
    if (blocked || unreadable.empty()) {
      facts.set(fact, blocked, source);
    } else {
      facts.set_unknown(fact, unreadable, source);
    }
  };
  verdict("modprobe.nvidia_blacklisted"_fact, nvidia_blocked);
  verdict("modprobe.nouveau_blacklisted"_fact, nouveau_blocked);
}

}  // namespace gd
