#include "probes/rdma/gpudirect.hpp"

#include <fmt/format.h>

namespace gd {
namespace {

bool at_least(const KernelVersion& kernel, const KernelVersion& since) {
  return kernel.major > since.major || (kernel.major == since.major && kernel.minor >= since.minor);
}

}  // namespace

std::optional<DmabufImporter> dmabuf_importer(std::string_view driver) {
  // The PCI function's driver, which for the auxiliary RDMA drivers is the Ethernet driver.
  if (driver == "mlx5_core") return DmabufImporter{KernelVersion{5, 12}};
  if (driver == "efa") return DmabufImporter{KernelVersion{5, 16}};
  if (driver == "bnxt_en" || driver == "ice" || driver == "i40e" || driver == "mana") return DmabufImporter{std::nullopt};
  return std::nullopt;
}

DmabufVerdict dmabuf_possible(const GpuDirectInputs& inputs) {
  // The HCAs' drivers against the kernel: one that imports dma-bufs on this kernel is enough.
  bool driver_ok = false, driver_undecided = false, too_old = false;
  std::string ok_text;  // "a kernel >= 5.12 and an mlx5 HCA"
  for (const std::string& driver : inputs.hca_drivers) {
    auto importer = dmabuf_importer(driver);
    if (!importer) continue;
    if (!importer->since || !inputs.kernel) {
      driver_undecided = true;
    } else if (at_least(*inputs.kernel, *importer->since)) {
      if (!driver_ok) {
        ok_text = fmt::format("a kernel >= {}.{} and {}", importer->since->major, importer->since->minor,
                              driver == "efa" ? "an EFA device" : "an mlx5 HCA");
      }
      driver_ok = true;
    } else {
      too_old = true;
    }
  }
  if (!driver_ok && !driver_undecided) {
    if (too_old) return {false, "the kernel is older than the first whose HCA driver imports dma-bufs (mlx5: 5.12, EFA: 5.16)"};
    return {false, inputs.hca_drivers.empty() ? "no HCA whose driver is known"
                                              : "no HCA driver that imports dma-bufs (mlx5_core and efa do)"};
  }
  if (inputs.module_flavor && *inputs.module_flavor != "open") {
    return {false, "the proprietary NVIDIA kernel module exports no dma-buf for RDMA (the open one does)"};
  }
  if (!inputs.kernel) return {std::nullopt, "the kernel release is unknown"};
  if (!driver_ok) return {std::nullopt, "whether this kernel's HCA driver imports dma-bufs is not known (bnxt_re, irdma and mana_ib do in recent kernels)"};
  if (!inputs.module_flavor) return {std::nullopt, "the NVIDIA kernel module's flavour (open or proprietary) is unknown"};
  return {true, "the open NVIDIA kernel module, " + ok_text};
}

}  // namespace gd
