#pragma once
// The GPUs the NVIDIA driver lists under /proc/driver/nvidia/gpus/<bus id>/information: which
// /dev/nvidiaN node each one needs (Device Minor) and its UUID. Inside a container the NVIDIA
// runtime shows only the GPUs given to the container there, so this is also "the GPUs this
// process may see".

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

/// The fields of one information file that the device and container checks need.
struct DriverGpu {
  std::string bus_id;               ///< folder name ("0000:00:06.0")
  std::optional<int> device_minor;  ///< "Device Minor:" -> /dev/nvidia<minor>
  std::string uuid;                 ///< "GPU UUID:" ("GPU-e2c36f54-...")
  std::string model;                ///< "Model:" ("NVIDIA H200")
};

/// Parses one information file for what the node and container checks need (nvidia_gpu_info.hpp
/// parses the module-side fields) (kernel-open/nvidia/nv-procfs.c, nv_procfs_read_gpu_info:
/// "Model: \t\t %s", "GPU UUID: \t %s", "Device Minor: \t %u", ...). Unknown lines are skipped.
DriverGpu parse_driver_gpu(std::string_view text);

/// Every GPU folder's information file, read through `host`.
struct DriverGpus {
  std::optional<IoError> error;  ///< listing /proc/driver/nvidia/gpus failed (ENOENT: module not loaded)
  std::vector<DriverGpu> gpus;   ///< in bus-id order
  std::vector<std::string> unreadable;  ///< "0000:01:00.0 EACCES (...)" for files that could not be read
};

DriverGpus read_driver_gpus(Host& host);

}  // namespace gd
