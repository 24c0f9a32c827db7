#pragma once
// Whether a device node's permission bits let a user open it read-write, and the name of the
// group that owns it (the fix for EACCES is usually "add the user to that group").

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

/// The name /etc/group gives to `gid` ("video" for 44), if its text lists it.
std::optional<std::string> group_name(std::string_view etc_group, std::uint32_t gid);

/// "0660" for the permission bits.
std::string octal_mode(std::uint32_t mode);

}  // namespace gd
