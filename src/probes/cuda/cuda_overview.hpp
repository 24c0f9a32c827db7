#pragma once
// The cuda layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// The CUDA line: what the helper's libcuda said, cuInit and each device's proof.
AreaLine cuda_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
