#pragma once
// The name lists NCCL_SOCKET_IFNAME and NCCL_IB_HCA take (NCCL's parseStringList and matchIfList,
// src/misc/utils.cc; the environment variables page of NCCL's user guide): comma-separated
// entries, each a prefix ("eth" selects eth0, eth1) or, after a leading '=', an exact name; a
// leading '^' turns the list into one of names to leave out ("^docker,lo", "^=docker0"); an entry
// may end in ":port" (mlx5_0:1), which selects a port of an HCA.

#include <string>
#include <string_view>
#include <vector>

namespace gd {

struct NcclNameList {
  bool exclude = false;  ///< '^': the names are left out, everything else is used
  bool exact = false;    ///< '=': names must be equal, not prefixes
  std::vector<std::string> names;  ///< without ":port"
  std::vector<int> ports;          ///< each name's ":port", -1 where it has none (every port)
};

/// Parses a value as NCCL does; empty entries are dropped. At most k_max_list_entries are kept.
NcclNameList parse_nccl_name_list(std::string_view value);
inline constexpr std::size_t k_max_list_entries = 64;

/// Whether `entry` of `list` selects `name` (prefix or exact), leaving out '^'.
bool entry_selects(const NcclNameList& list, std::string_view entry, std::string_view name);

/// Whether an include list names port `port` of device `device`: an entry that is the device's
/// whole name, with that port or none (NCCL's matchIfList: an entry without a port selects every
/// port of its devices). An entry that is only a prefix of the name ("mlx5" for mlx5_3) selects
/// the device for NCCL but names none of its ports. false for an exclude list.
bool list_names_port(const NcclNameList& list, std::string_view device, int port);

/// Whether the list keeps `name`: for an include list, some entry selects it; for an exclude
/// list, none does.
bool list_keeps(const NcclNameList& list, std::string_view name);

}  // namespace gd
