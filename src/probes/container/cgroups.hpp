#pragma once
// cgroup facts a GPU problem depends on: which hierarchy is in use (v1, v2 or the systemd
// "hybrid" of both) and, on v1, the device controller's allow list. The device cgroup is what
// turns open("/dev/nvidia0") into EPERM inside a container.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/shared/mountinfo.hpp"  // MountEntry, parse_mountinfo: the cgroup mounts come from it

namespace gd {

/// One line of /proc/<pid>/cgroup (cgroups(7)): "hierarchy-ID:controller-list:cgroup-path".
/// v2 has the single line "0::/path".
struct CgroupEntry {
  std::string hierarchy;
  std::string controllers;
  std::string path;
};

std::vector<CgroupEntry> parse_proc_cgroup(std::string_view text);


/// "v2" (only cgroup2 mounts / only a "0::" line), "v1" (only cgroup v1), "hybrid" (v1
/// controllers plus a cgroup2 mount or "0::" line, systemd's hybrid layout). The mounts decide
/// when they show any cgroup filesystem; else /proc/self/cgroup. nullopt when neither says.
std::optional<std::string> cgroup_version(const std::vector<MountEntry>& mounts, const std::vector<CgroupEntry>& self);

/// One rule of a v1 devices.list (Documentation/admin-guide/cgroup-v1/devices.rst):
/// "c 195:* rwm", "a *:* rwm". nullopt major/minor stand for "*".
struct DeviceRule {
  char type = 'a';  ///< 'a' (all), 'c' (char), 'b' (block)
  std::optional<unsigned> major;
  std::optional<unsigned> minor;
  std::string access;  ///< subset of "rwm"
};

std::vector<DeviceRule> parse_devices_list(std::string_view text);

/// Whether the rules together grant `access` ("rw") to character device major:minor. The
/// kernel shows "a *:* rwm" when the cgroup allows everything by default.
bool devices_list_allows(const std::vector<DeviceRule>& rules, unsigned major, unsigned minor, std::string_view access);

}  // namespace gd
