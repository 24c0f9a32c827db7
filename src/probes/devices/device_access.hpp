#pragma once
// Whether a device node's permission bits let a user open it read-write (the group's name, for
// the fix "add the user to that group", comes from probes/shared/account_files).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sys/host.hpp"

namespace gd {

/// True when `node`'s mode grants read and write to `user` (classic Unix DAC: the owner bits
/// apply when the uid matches, else the group bits when the gid or a supplementary group
/// matches, else the other bits; uid 0 passes). ACLs and LSMs are not modelled.
bool mode_grants_rw(const FileStat& node, const Identity& user);

}  // namespace gd
