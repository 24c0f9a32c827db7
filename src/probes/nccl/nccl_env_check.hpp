#pragma once
// NCCL's variables against the host (issue 26 item 5): whether NCCL_SOCKET_IFNAME and NCCL_IB_HCA
// name interfaces and HCAs that exist (and, for interfaces, are up), which transports the
// variables turn off and what each costs, whether NCCL_TOPO_FILE can be read, and which IPv4
// destinations NCCL's interfaces reach twice. Pure functions over what the probe read.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/nccl/nccl_name_list.hpp"
#include "probes/nccl/net_interfaces.hpp"

namespace gd {

/// The entries of an include list that select no interface that is up: "eth1: no such
/// interface", "ib0: down (ib0 down)". Empty for an exclude list.
std::vector<std::string> unmatched_interfaces(const NcclNameList& list, const std::vector<NetInterface>& interfaces);

/// The interfaces the list keeps, as interface_text prints them.
std::vector<std::string> matched_interfaces(const NcclNameList& list, const std::vector<NetInterface>& interfaces);

/// The entries of an include list that select no device of `devices` ("mlx5_4: no such device").
std::vector<std::string> unmatched_devices(const NcclNameList& list, const std::vector<std::string>& devices);

/// The variables that turn a transport off (or restrict it), each with what it costs. `value_of`
/// gives a variable's value, nullopt when unset.
struct NcclSwitches {
  std::optional<std::string> p2p_disable, shm_disable, ib_disable, nvls_enable, p2p_level;
};
std::vector<std::string> disabled_transports(const NcclSwitches& switches);

/// NCCL reads these as integers (ncclGetEnv + strtoll): "1", "2" turn a transport off, "0", "" and
/// text that is not a number do not.
bool nccl_flag_set(std::string_view value);

/// The interfaces NCCL's socket code may choose among: those NCCL_SOCKET_IFNAME keeps, else all
/// but the ones NCCL leaves out by default (names starting with "docker" or "lo").
bool nccl_may_use_interface(const std::optional<NcclNameList>& socket_ifname, std::string_view name);

}  // namespace gd
