#pragma once
// The NVIDIA container toolkit's variables as this process sees them (NVIDIA_VISIBLE_DEVICES,
// NVIDIA_DRIVER_CAPABILITIES, NVIDIA_REQUIRE_CUDA evaluated against the loaded driver), and
// CUDA_VISIBLE_DEVICES checked against the GPUs the driver lists. Runs after the module and
// device-node probes: it reads kmod.nvidia.version, dev.gpu_count and dev.gpu_uuids.

#include "probes/probe.hpp"

namespace gd {

/// env.nvidia_*, container.missing_driver_capabilities, container.driver_cuda_version,
/// container.require_cuda_unmet, container.cuda_visible_devices_malformed / _absent.
void record_nvidia_container_env(Host& host, FactSet& facts);

}  // namespace gd
