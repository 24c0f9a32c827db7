#include "probes/kernel_log/iommu_fault_lines.hpp"

#include <string_view>

namespace gd {
namespace {

bool is_iommu_dma_fault(std::string_view line) {
  if (line.find("[IO_PAGE_FAULT") != std::string_view::npos) return true;
  std::size_t dmar = line.find("DMAR:");
  if (dmar == std::string_view::npos) return false;
  std::string_view rest = line.substr(dmar);
  return rest.find("Request device [") != std::string_view::npos && rest.find("[DMA ") != std::string_view::npos &&
         rest.find("INTR-REMAP") == std::string_view::npos;
}

}  // namespace

std::vector<std::string> iommu_fault_lines(const std::vector<std::string>& lines, std::size_t max_lines) {
  std::vector<std::string> found;
  for (auto it = lines.rbegin(); it != lines.rend() && found.size() < max_lines; ++it) {
    if (is_iommu_dma_fault(*it)) found.push_back(*it);
  }
  return {found.rbegin(), found.rend()};
}

}  // namespace gd
