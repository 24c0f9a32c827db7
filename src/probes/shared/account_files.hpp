#pragma once
// /etc/passwd and /etc/group as the probes need them: the name an id has, the id a name has
// (both files put the name first and the id third: passwd(5), group(5)), and permission bits
// as ls shows them. Used for device nodes (the group to join), log files (who can write) and
// the user's home folder (Python environments, ~/.nccl.conf).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sys/host.hpp"

namespace gd {

/// The name /etc/passwd or /etc/group text gives to `id` ("video" for 44), if it lists it.
std::optional<std::string> account_name(std::string_view etc_file, std::uint32_t id);

/// The id of the entry named `name`, if the text lists it with a valid number.
std::optional<std::uint32_t> account_id(std::string_view etc_file, std::string_view name);

/// The home folder /etc/passwd text gives to `uid` (the sixth field, getpwuid's pw_dir), when
/// it lists the uid with an absolute folder.
std::optional<std::string> passwd_home(std::string_view passwd, std::uint32_t uid);

/// The home folder of the uid gpudoctor runs as, from the rooted /etc/passwd (getpwuid(getuid())'s
/// pw_dir, as NCCL and Python's site find it); nullopt when the file or the entry is missing.
std::optional<std::string> home_folder(Host& host);

/// "0660" for the permission bits.
std::string octal_mode(std::uint32_t mode);

}  // namespace gd
