#include "probes/devices/device_access.hpp"

#include <algorithm>

namespace gd {

bool mode_grants_rw(const FileStat& node, const Identity& user) {
  if (user.uid == 0) {
    return true;  // CAP_DAC_OVERRIDE; a container's root may still be stopped by the device cgroup
  }
  std::uint32_t bits = 0;
  if (node.uid == user.uid) {
    bits = (node.mode >> 6) & 07;
  } else if (node.gid == user.gid ||
             std::find(user.groups.begin(), user.groups.end(), node.gid) != user.groups.end()) {
    bits = (node.mode >> 3) & 07;
  } else {
    bits = node.mode & 07;
  }
  return (bits & 06) == 06;
}

}  // namespace gd
