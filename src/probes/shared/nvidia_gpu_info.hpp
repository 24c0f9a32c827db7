#pragma once
// What the loaded nvidia module says about itself and each GPU under /proc/driver/nvidia:
// params (its module parameters) and gpus/<bus>/information.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// /proc/driver/nvidia/gpus/<bus>/information, as kernel-open/nvidia/nv-procfs.c
/// nv_procfs_read_gpu_info() prints it ("Key: \t value" lines).
struct GpuInformation {
  std::string model;                ///< "NVIDIA H200"
  std::string uuid;                 ///< "GPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f"
  std::string bus_location;         ///< "0000:00:06.0"
  std::optional<int> device_minor;  ///< N of /dev/nvidiaN
  std::string gpu_firmware;         ///< "580.159.04"; empty when the line is missing or "N/A" (no GSP firmware running)
  std::optional<bool> excluded;     ///< "GPU Excluded: Yes/No" (NVreg_ExcludedGpus)
};

/// Parses one information file; nullopt when it has none of the known lines.
std::optional<GpuInformation> parse_gpu_information(std::string_view text);

/// Parses /proc/driver/nvidia/params ("Name: value" per line, strings quoted) into a map.
std::map<std::string, std::string, std::less<>> parse_nvidia_params(std::string_view text);

/// The value of one parameter of /proc/driver/nvidia/params for the fact `name`: nullopt after
/// setting the fact absent (no module loaded; no such line, with `no_line_reason`) or unknown (the
/// file unreadable), so that the caller only turns a value into the fact.
std::optional<std::string> nvidia_param_for(Host& host, FactSet& facts, FactName name, std::string_view key,
                                            const std::string& no_line_reason);

/// kmod.nvidia.params.enable_gpu_firmware from /proc/driver/nvidia/params.
void record_nvidia_params(Host& host, FactSet& facts);

/// kmod.nvidia.gpu_count, kmod.nvidia.gpus, kmod.nvidia.gpu_firmware_versions,
/// kmod.nvidia.device_minors and kmod.nvidia.excluded_gpus from gpus/*/information (the
/// firmware probe turns the GPU Firmware lines into its verdict).
void record_gpu_information(Host& host, FactSet& facts);

}  // namespace gd
