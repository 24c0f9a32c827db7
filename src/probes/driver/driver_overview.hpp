#pragma once
// The driver layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// The kernel module line: the nvidia module loaded, its version and flavour, its firmware.
AreaLine driver_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
