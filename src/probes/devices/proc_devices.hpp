#pragma once
// /proc/devices: the character and block device majors the running kernel has registered, by
// driver name. The NVIDIA nodes are checked against it: nvidia/nvidiactl are fixed at 195, but
// nvidia-uvm, nvidia-caps and nvidia-nvlink get a dynamic major at module load.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// One "NNN name" line of /proc/devices.
struct DeviceMajor {
  int major = 0;
  std::string name;
};

/// The two sections of /proc/devices.
struct ProcDevices {
  std::vector<DeviceMajor> character;
  std::vector<DeviceMajor> block;
};

/// Parses /proc/devices (fs/proc/devices.c: "Character devices:" then "%3d %s" lines, a blank
/// line, "Block devices:" and its lines). Lines that are not "number name" are skipped.
ProcDevices parse_proc_devices(std::string_view text);

/// The major of the character driver registered as `name` ("nvidia-uvm"), if any.
std::optional<int> character_major(const ProcDevices& devices, std::string_view name);

}  // namespace gd
