#pragma once
// The devices layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// The device nodes line: /dev/nvidia* as a client finds them.
AreaLine devices_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
