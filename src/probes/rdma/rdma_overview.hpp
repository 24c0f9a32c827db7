#pragma once
// The RDMA layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// "8 HCAs active (InfiniBand 400 Gb/sec), GPUDirect via nvidia_peermem", "none",
/// "2 HCAs, 1 port down, ...", "2 HCAs on the host, no /dev/infiniband/uverbs* in this container".
AreaLine rdma_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
