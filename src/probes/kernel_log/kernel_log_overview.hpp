#pragma once
// The kernel-log layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// The kernel log line: the NVIDIA driver's messages (Xid, RmInitAdapter, ...).
AreaLine kernel_log_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
