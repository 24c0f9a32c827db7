#pragma once
// The NVLink layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// "8 GPUs, 18 links each, all up (NVLink 4.0)", "none (PCIe only)", "GPU 3 link 7 down".
AreaLine nvlink_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
