#pragma once
// /proc/<pid>/mountinfo, read by two layers: the container layer (cgroup mounts) and the limits
// layer (the tmpfs on /dev/shm).

#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// One line of /proc/<pid>/mountinfo (proc(5)): "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 -
/// ext3 /dev/root rw,errors=continue". Octal escapes (\040) in paths are decoded.
struct MountEntry {
  std::string root;           ///< the mounted folder inside its filesystem (field 4)
  std::string mount_point;    ///< field 5
  std::string fstype;         ///< after the "-" separator
  std::string source;
  std::string super_options;
};

std::vector<MountEntry> parse_mountinfo(std::string_view text);

}  // namespace gd
