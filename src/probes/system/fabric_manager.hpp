#pragma once
// The NVSwitch Fabric Manager beyond "it runs" (issue 26 item 3): when the running
// nv-fabricmanager started against the processes that already held a GPU through CUDA, and the
// version it last started as against the loaded driver's.
//
// A fabric manager restarted while jobs hold GPU resources leaves the NVLink fabric state of those
// jobs (and, until the GPUs are reset, of later ones) broken: NCCL's NVLS setup then fails with
// "transport/nvls.cc ... Cuda failure 'invalid argument'" (NVIDIA/nccl#976, #1488: "nv-fabricmanager
// having been manually restarted while processes were still holding resources on the GPU").
// Nothing on the node records the restart as an error, but /proc keeps every process's start
// time: a CUDA process older than the fabric manager saw it restart.
//
// Fabric Manager must have exactly the driver's version or it stops at start ("the FM service
// checks the currently loaded kernel driver stack version for compatibility, and if the loaded
// driver stack version is not compatible, aborts the process": Fabric Manager user guide). It
// logs its version first thing, "Fabric Manager version 580.95.05 is running with the following
// configuration options", in /var/log/fabricmanager.log (LOG_FILE_NAME's default), so the log's
// tail tells the version without running the binary (GPUd runs `nv-fabricmanager --version`).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// Field 22 of /proc/PID/stat, the process's start in clock ticks after boot (proc(5)); fields
/// are counted after the last ')' since the command name may hold spaces and parentheses.
std::optional<std::uint64_t> proc_start_ticks(std::string_view stat);

/// The "btime" line of /proc/stat: the boot time in seconds since the epoch.
std::optional<std::int64_t> proc_boot_time(std::string_view proc_stat);

/// The version of the last "Fabric Manager version X is running ..." line of a log's text.
std::optional<std::string> fabric_manager_log_version(std::string_view log);

/// Whether an open file (a /proc/PID/fd link's target) is a GPU's node (/dev/nvidia0 ...) or
/// the unified-memory node every CUDA process opens at cuInit (/dev/nvidia-uvm). NVML-only
/// programs (nvidia-persistenced, nvidia-smi, monitors) hold GPU nodes but not nvidia-uvm.
bool is_gpu_node(std::string_view target);
bool is_uvm_node(std::string_view target);

/// "2026-12-06 08:12:03 UTC".
std::string utc_text(std::int64_t epoch_seconds);

/// "2 h 5 min", "40 s": a duration for messages.
std::string duration_text(std::uint64_t seconds);

/// service.fabricmanager.{started_s, started, older_cuda_processes, restarted_under_cuda_processes,
/// version, version_mismatch}. `fm_pid` is the running nv-fabricmanager's pid (nullopt when none
/// runs); `pids` every process the services scan listed. Reads service.fabricmanager.running
/// (set just before) and kmod.nvidia.version.
void probe_fabric_manager(Host& host, FactSet& facts, const std::optional<std::string>& fm_pid,
                          const std::vector<std::string>& pids);

}  // namespace gd
