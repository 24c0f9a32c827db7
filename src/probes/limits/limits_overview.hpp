#pragma once
// The limits layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// "1 GPU, /dev/shm 64 MiB, memlock unlimited, no RDMA devices"; skipped under --scope node.
AreaLine limits_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
