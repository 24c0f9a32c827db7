#pragma once
// A process's name from /proc/<pid>/comm, read by two layers: the system layer (which NVIDIA
// daemons run, how old the CUDA processes are against the fabric manager) and the NVLink layer
// (the IMEX daemon's cgroup).

#include <optional>
#include <string>
#include <string_view>

#include "sys/host.hpp"

namespace gd {

/// /proc/<pid>/comm without its newline: the program name cut to 15 characters (TASK_COMM_LEN 16,
/// proc(5)), "nv-fabricmanage" for nv-fabricmanager. nullopt when the process ended meanwhile or
/// its file cannot be read.
std::optional<std::string> process_comm(Host& host, std::string_view pid);

}  // namespace gd
