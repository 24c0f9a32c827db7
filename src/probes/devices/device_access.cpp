#include "probes/devices/device_access.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

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

std::optional<std::string> group_name(std::string_view etc_group, std::uint32_t gid) {
  // group(5): name:password:GID:members, one group per line.
  std::size_t pos = 0;
  while (pos < etc_group.size()) {
    std::size_t end = etc_group.find('\n', pos);
    if (end == std::string_view::npos) {
      end = etc_group.size();
    }
    std::string_view line = etc_group.substr(pos, end - pos);
    pos = end + 1;
    std::size_t first = line.find(':');
    std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    std::size_t third = second == std::string_view::npos ? second : line.find(':', second + 1);
    if (third == std::string_view::npos) {
      continue;
    }
    std::string_view number = line.substr(second + 1, third - second - 1);
    std::uint32_t value = 0;
    auto [ptr, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error == std::errc() && ptr == number.data() + number.size() && value == gid && first > 0) {
      return std::string(line.substr(0, first));
    }
  }
  return std::nullopt;
}

std::string octal_mode(std::uint32_t mode) { return fmt::format("{:04o}", mode & 07777); }

}  // namespace gd
