#pragma once
// The p2p layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// "56 pairs proven (copy-verify)", "1 GPU: no peers", "1 of 56 pairs wrong: GPU 0 (...) -> GPU 2 (...)".
AreaLine p2p_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
