#pragma once
// The nccl layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// "2.27.3 (nvidia-nccl-cu12 wheel), NCCL_SOCKET_IFNAME=eth0 up", "not installed",
/// "2 copies (2.21.5 system, 2.27.3 wheel)"; skipped under --scope node.
AreaLine nccl_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
