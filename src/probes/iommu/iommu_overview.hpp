#pragma once
// The iommu layer's overview line (core/all_layers.hpp names it in the layer's row).

#include <vector>

#include "core/overview.hpp"

namespace gd::areas {

/// "IOMMU off; 0 of 6 bridges between GPUs redirect", "IOMMU translating for 8 GPUs (DMA-FQ);
/// ACS redirect on 4 bridges between GPUs", "ACS not read (needs root)", "1 GPU: no peer path".
AreaLine iommu_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

}  // namespace gd::areas
