#pragma once
// The host's network interfaces as NCCL's socket bootstrap meets them: /sys/class/net/<if>/operstate
// (RFC 2863 states the kernel prints: up, down, unknown, dormant, lowerlayerdown, notpresent,
// testing; Documentation/ABI/testing/sysfs-class-net) and, where the driver leaves the state
// "unknown" (lo, tun and some virtual NICs), the IFF_UP bit of /sys/class/net/<if>/flags
// ("0x1003": include/uapi/linux/if.h IFF_UP = 0x1).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

struct NetInterface {
  std::string name;
  std::string operstate;  ///< as the kernel prints it, trimmed; "?" when unreadable
  bool up = false;
};

/// /sys/class/net/<if>/flags: "0x1003\n" -> 0x1003; nullopt when not a hex number.
std::optional<unsigned long> parse_interface_flags(std::string_view text);

/// Up when operstate is "up", or "unknown" with IFF_UP set in `flags`.
bool interface_is_up(std::string_view operstate, std::optional<unsigned long> flags);

/// "eth0 up", "ib0 down".
std::string interface_text(const NetInterface& interface);

/// The interfaces of /sys/class/net (at most k_max_interfaces), or the folder's error.
IoResult<std::vector<NetInterface>> read_net_interfaces(Host& host);
inline constexpr std::size_t k_max_interfaces = 512;

}  // namespace gd
