#pragma once
// One row per GPU across the layers that number GPUs differently: PCI (bus order), CUDA (its
// own ordinal, changed by CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES) and NVML. Rows are joined
// on the PCI bus id, which all three report (in two spellings), else on the UUID. Pure.

#include <optional>
#include <string>
#include <vector>

#include "core/fact_set.hpp"
#include "util/pci_bus_id.hpp"

namespace gd {

struct GpuRow {
  std::string bus_id;           ///< "0000:00:06.0" (lower case, 4-digit domain), "" when no layer gave one
  std::string uuid;             ///< "GPU-...", from CUDA or NVML, "" when neither gave one
  std::optional<int> pci;       ///< N of pci.gpu.N.*
  std::optional<int> cuda;      ///< N of cuda.device.N.*
  std::optional<int> nvml;      ///< N of nvml.device.N.*
};


/// The PCI GPUs in bus order, then CUDA devices that matched none of them, then NVML devices
/// that matched neither (a host whose sysfs could not be read still gets its rows).
std::vector<GpuRow> gpu_rows(const FactSet& facts);

}  // namespace gd
