#pragma once
// The pci layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// The PCI line: the NVIDIA GPUs and NVSwitches on the bus, one detail per GPU.
AreaLine pci_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
