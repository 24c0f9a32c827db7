#pragma once
// Whether the NVIDIA driver is too old for a GPU on the bus. The driver accepts a GPU by its chip
// (osapi.c rm_is_supported_device: the chip read from PMC_BOOT_42 must have a HAL in the release)
// and only then binds it and lists it under /proc/driver/nvidia/gpus (nv-pci.c nv_pci_probe), so
// a GPU that is bound to nvidia or listed there is supported by the loaded release whatever the
// GPU table says. The table's first supporting release (pci.gpu.*.min_driver_version) only
// judges the GPUs the driver did not take.

#include <optional>
#include <string_view>

#include "probes/probe.hpp"

namespace gd {

/// Numeric, dot-by-dot comparison of two driver versions ("570.124.04" > "570.86.16"; missing
/// segments count as 0): negative, zero or positive; nullopt when either is not a version.
std::optional<int> compare_driver_versions(std::string_view a, std::string_view b);

/// kmod.nvidia.gpus_too_new, kmod.nvidia.needed_version and kmod.nvidia.needed_branch from the
/// pci probe's per-GPU facts (bus id, device id, chip, driver, min_driver_version) and the
/// module's (loaded, version, gpus; disk_version when it is not loaded). Reads facts only.
void record_gpu_support(FactSet& facts);

}  // namespace gd
