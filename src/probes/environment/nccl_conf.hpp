#pragma once
// NCCL's configuration files (issue 26 item 5). At its first ncclGetEnv NCCL reads, in this order,
// $NCCL_CONF_FILE when the environment sets it (else ~/.nccl.conf, the home of getuid()'s passwd
// entry, not $HOME), then /etc/nccl.conf, and sets each VAR=value line with setenv(..., 0): a
// variable the environment already has keeps its value, and the first file to set a variable
// wins over the later ones (src/misc/param.cc: initEnvFunc, setEnvFile; src/os/linux.cc:
// ncclOsSetEnv). So a bad NCCL_SOCKET_IFNAME in /etc/nccl.conf breaks every job on the node that
// does not set the variable itself. Only NCCL_* names are kept here: the files may hold anything.
// Releases differ: NCCL_CONF_FILE is read from 2.23.4 on (older releases ignore it and always read
// ~/.nccl.conf), and '#' lines are skipped from 2.26.2 on (older releases set a variable named
// "#NCCL_X", which nothing reads: the same effect). 2.18 to 2.30 all setenv without overwrite.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// One VAR=value line as NCCL's setEnvFile takes it.
struct NcclConfLine {
  std::string name;
  std::string value;
};

/// The lines of a configuration file as setEnvFile reads them: a line starting with '#' is a
/// comment, a line without '=' is skipped, the name is everything before the first '=' and the
/// value everything after it (nothing trimmed: "NCCL_X = 1" sets "NCCL_X " to " 1", which NCCL
/// never reads), each cut to 1023 bytes; only the line's '\n' is dropped (a '\r' stays in the
/// value, as it does in NCCL). Every name, in file order, duplicates too.
std::vector<NcclConfLine> parse_nccl_conf(std::string_view text);

/// One file NCCL would read, and what it gives.
struct NcclConfFile {
  std::string path;
  enum class State { read, missing, unreadable } state = State::missing;
  std::string problem;                ///< why it is unreadable ("EACCES (Permission denied)")
  std::vector<NcclConfLine> settings;  ///< its NCCL_* lines (names gpudoctor may report), first of each name
};

/// The files, in NCCL's order: the user's ($NCCL_CONF_FILE, else ~/.nccl.conf when the run's uid
/// has a home in /etc/passwd), then /etc/nccl.conf. `conf_file_env` is NCCL_CONF_FILE's value.
std::vector<NcclConfFile> read_nccl_conf_files(Host& host, const std::optional<std::string>& conf_file_env);

/// Where a variable the environment does not set comes from: the first file (in NCCL's order)
/// that sets it, and its value; nullopt when none does.
struct NcclConfValue {
  std::string value;
  std::string path;
};
std::optional<NcclConfValue> nccl_conf_value(const std::vector<NcclConfFile>& files, std::string_view name);

}  // namespace gd
