#pragma once
// The IPv4 routes of /proc/net/route (linux net/ipv4/fib_trie.c fib_route_seq_show: a header
// line, then per route "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\t
// Window\tIRTT", addresses as 8 hex digits in network byte order printed as a host-order u32,
// each line padded with blanks to 127 characters), and the destinations reached through more
// than one interface: NVIDIA/nccl#1581, where two interfaces each had a route to 192.168.0.0/20
// and NCCL's bootstrap used a different one on each node, by the order of the table.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

struct Ipv4Route {
  std::string interface;
  std::uint32_t destination = 0;  ///< as printed (host order of the network-order bytes)
  std::uint32_t mask = 0;
  std::uint32_t flags = 0;        ///< RTF_UP 0x1, RTF_GATEWAY 0x2, RTF_HOST 0x4
  std::int64_t metric = 0;
};

struct RouteTable {
  std::vector<Ipv4Route> routes;
  std::size_t malformed = 0;  ///< lines that were not a route
};

/// Parses the file's text (the header line is skipped; at most k_max_routes routes are kept).
RouteTable parse_proc_net_route(std::string_view text);
inline constexpr std::size_t k_max_routes = 65536;

/// "10.0.0.0/255.255.255.0" from the printed values (the bytes are in memory order).
std::string route_prefix_text(std::uint32_t destination, std::uint32_t mask);

/// Link routes (no gateway, not the default route) of the same destination and mask through two
/// or more interfaces, at least one of which `usable` keeps (NCCL may use it): "10.0.0.0/255.255.255.0
/// via eth0, eth1". A group whose every interface `exempt` names is left out (the RDMA rails of a
/// multi-rail node, below). /proc/net/route is the main table only (fib_route_seq_start reads
/// RT_TABLE_MAIN): policy routing (ip rule ... table N) is not in it, nor in any file.
template <typename Usable, typename Exempt>
std::vector<std::string> duplicate_destinations(const RouteTable& table, Usable usable, Exempt exempt);
template <typename Usable>
std::vector<std::string> duplicate_destinations(const RouteTable& table, Usable usable) {
  return duplicate_destinations(table, usable, [](std::string_view) { return false; });
}

}  // namespace gd

#include "probes/nccl/net_routes_impl.hpp"
