#pragma once
// The template of net_routes.hpp.

#include <map>
#include <set>
#include <utility>

namespace gd {

template <typename Usable, typename Exempt>
std::vector<std::string> duplicate_destinations(const RouteTable& table, Usable usable, Exempt exempt) {
  constexpr std::uint32_t k_rtf_gateway = 0x2;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<std::string>> by_prefix;
  for (const Ipv4Route& route : table.routes) {
    if ((route.flags & k_rtf_gateway) != 0 || route.mask == 0) continue;  // via a router, or the default route
    by_prefix[{route.destination, route.mask}].insert(route.interface);
  }
  std::vector<std::string> out;
  for (const auto& [prefix, interfaces] : by_prefix) {
    if (interfaces.size() < 2) continue;
    // The kernel picks the interface of an outgoing connection from the table, whatever NCCL
    // bound: one interface NCCL uses sharing its subnet with another is enough (NVIDIA/nccl#1581
    // had NCCL_SOCKET_IFNAME set).
    bool any_usable = false;
    for (const std::string& name : interfaces) any_usable = any_usable || usable(name);
    if (!any_usable) continue;
    bool all_exempt = true;
    for (const std::string& name : interfaces) all_exempt = all_exempt && exempt(name);
    if (all_exempt) continue;
    std::string text = route_prefix_text(prefix.first, prefix.second) + " via ";
    bool first = true;
    for (const std::string& name : interfaces) {
      text += (first ? "" : ", ") + name;
      first = false;
    }
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace gd
