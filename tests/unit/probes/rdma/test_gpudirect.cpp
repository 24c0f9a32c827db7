// The dma-buf path's verdict (probes/rdma/gpudirect): which HCA drivers import dma-bufs from which
// kernel (mlx5 5.12, EFA 5.16), and the NVIDIA module that must export them (the open one).

#include "probes/rdma/gpudirect.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::GpuDirectInputs;
using gd::KernelVersion;

namespace {

GpuDirectInputs inputs(std::vector<std::string> drivers, KernelVersion kernel, std::string flavor = "open") {
  GpuDirectInputs in;
  in.hca_drivers = std::move(drivers);
  in.kernel = kernel;
  in.module_flavor = std::move(flavor);
  return in;
}

}  // namespace

TEST_CASE("gpudirect: the HCA drivers that import dma-bufs, by kernel", "[probes][rdma]") {
  CHECK(gd::dmabuf_possible(inputs({"mlx5_core"}, {5, 12})).possible == true);
  CHECK(gd::dmabuf_possible(inputs({"mlx5_core"}, {5, 11})).possible == false);
  CHECK(gd::dmabuf_possible(inputs({"efa"}, {5, 16})).possible == true);
  CHECK(gd::dmabuf_possible(inputs({"efa"}, {5, 15})).possible == false);
  CHECK(gd::dmabuf_possible(inputs({"efa"}, {6, 1})).why == "the open NVIDIA kernel module, a kernel >= 5.16 and an EFA device");
  CHECK(gd::dmabuf_possible(inputs({"mlx5_core"}, {6, 8})).why == "the open NVIDIA kernel module, a kernel >= 5.12 and an mlx5 HCA");
  // One importer is enough.
  CHECK(gd::dmabuf_possible(inputs({"efa", "mlx5_core"}, {5, 15})).possible == true);
  // The proprietary NVIDIA module exports none, whatever the HCA.
  CHECK(gd::dmabuf_possible(inputs({"efa"}, {6, 1}, "proprietary")).possible == false);
  // Not an importer at all (a soft RoCE device has no PCI driver; qedr's qede does not import).
  CHECK(gd::dmabuf_possible(inputs({"qede"}, {6, 8})).possible == false);
}

TEST_CASE("gpudirect: a driver whose first dma-buf kernel is not pinned leaves it undecided", "[probes][rdma]") {
  // bnxt_re (PCI driver bnxt_en) imports dma-bufs in recent kernels: no false 'no provider'.
  auto broadcom = gd::dmabuf_possible(inputs({"bnxt_en"}, {6, 8}));
  CHECK_FALSE(broadcom.possible.has_value());
  // ... but the proprietary NVIDIA module still rules it out.
  CHECK(gd::dmabuf_possible(inputs({"bnxt_en"}, {6, 8}, "proprietary")).possible == false);
  // An mlx5 HCA beside it decides.
  CHECK(gd::dmabuf_possible(inputs({"bnxt_en", "mlx5_core"}, {6, 8})).possible == true);
}

}  // namespace GD_UNITY_ID
