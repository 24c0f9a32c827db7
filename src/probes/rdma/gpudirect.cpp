#include "probes/rdma/gpudirect.hpp"

#include <algorithm>

namespace gd {

bool driver_imports_dmabuf(std::string_view driver) { return driver == "mlx5_core"; }

DmabufVerdict dmabuf_possible(const GpuDirectInputs& inputs) {
  bool driver_ok = std::any_of(inputs.hca_drivers.begin(), inputs.hca_drivers.end(),
                               [](const std::string& driver) { return driver_imports_dmabuf(driver); });
  if (!driver_ok) {
    return {false, inputs.hca_drivers.empty() ? "no HCA whose driver is known"
                                              : "no HCA driver that imports dma-bufs (mlx5_core does)"};
  }
  if (inputs.kernel && (inputs.kernel->major < 5 || (inputs.kernel->major == 5 && inputs.kernel->minor < 12))) {
    return {false, "the kernel is older than 5.12, where RDMA learned to import dma-bufs"};
  }
  if (inputs.module_flavor && *inputs.module_flavor != "open") {
    return {false, "the proprietary NVIDIA kernel module exports no dma-buf for RDMA (the open one does)"};
  }
  if (!inputs.kernel) return {std::nullopt, "the kernel release is unknown"};
  if (!inputs.module_flavor) return {std::nullopt, "the NVIDIA kernel module's flavour (open or proprietary) is unknown"};
  return {true, "the open NVIDIA kernel module, a kernel >= 5.12 and an mlx5 HCA"};
}

}  // namespace gd
