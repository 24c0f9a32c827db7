#include "probes/container/cgroups.hpp"

#include "util/text_split.hpp"

#include <charconv>

namespace gd {
namespace {

// The kernel writes space, tab, newline and backslash in paths as \040, \011, \012, \134.
std::optional<unsigned> number_or_star(std::string_view text, bool& ok) {
  if (text == "*") {
    return std::nullopt;
  }
  unsigned value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  ok = ok && error == std::errc() && end == text.data() + text.size();
  return value;
}

}  // namespace

std::vector<CgroupEntry> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupEntry> out;
  for (std::string_view line : split_nonempty_lines(text)) {
    std::size_t first = line.find(':');
    std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) {
      continue;
    }
    out.push_back(CgroupEntry{std::string(line.substr(0, first)), std::string(line.substr(first + 1, second - first - 1)),
                              std::string(line.substr(second + 1))});
  }
  return out;
}

std::optional<std::string> cgroup_version(const std::vector<MountEntry>& mounts, const std::vector<CgroupEntry>& self) {
  bool v1 = false;
  bool v2 = false;
  for (const MountEntry& mount : mounts) {
    v1 = v1 || mount.fstype == "cgroup";
    v2 = v2 || mount.fstype == "cgroup2";
  }
  if (!v1 && !v2) {
    for (const CgroupEntry& entry : self) {
      if (entry.hierarchy == "0" && entry.controllers.empty()) {
        v2 = true;
      } else {
        v1 = true;
      }
    }
  }
  if (v1 && v2) {
    return "hybrid";
  }
  if (v2) {
    return "v2";
  }
  if (v1) {
    return "v1";
  }
  return std::nullopt;
}

std::vector<DeviceRule> parse_devices_list(std::string_view text) {
  std::vector<DeviceRule> out;
  for (std::string_view line : split_nonempty_lines(text)) {
    std::vector<std::string_view> words = split_words(line);
    if (words.size() != 3 || words[0].size() != 1 || words[0].find_first_of("abc") != 0) {
      continue;
    }
    std::size_t colon = words[1].find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    bool ok = true;
    DeviceRule rule;
    rule.type = words[0][0];
    rule.major = number_or_star(words[1].substr(0, colon), ok);
    rule.minor = number_or_star(words[1].substr(colon + 1), ok);
    rule.access = std::string(words[2]);
    if (ok && rule.access.find_first_not_of("rwm") == std::string::npos) {
      out.push_back(std::move(rule));
    }
  }
  return out;
}

bool devices_list_allows(const std::vector<DeviceRule>& rules, unsigned major, unsigned minor, std::string_view access) {
  std::string granted;
  for (const DeviceRule& rule : rules) {
    bool type_ok = rule.type == 'a' || rule.type == 'c';
    bool major_ok = !rule.major || *rule.major == major;
    bool minor_ok = !rule.minor || *rule.minor == minor;
    if (type_ok && major_ok && minor_ok) {
      granted += rule.access;
    }
  }
  for (char c : access) {
    if (granted.find(c) == std::string::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace gd
