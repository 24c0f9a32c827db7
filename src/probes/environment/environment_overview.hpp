#pragma once
// The environment layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// The environment line: the variables CUDA reads.
AreaLine environment_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
