#include "probes/nccl/nccl_gpu_minimums.hpp"

namespace gd {
namespace {

constexpr NcclMinimum k_minimums[] = {
    // RTX 5090 / RTX PRO Blackwell (GB20x, compute capability 12.0): NCCL 2.25.1 stops every
    // collective with "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856" (the GPU has
    // less shared memory per block than the data-center parts NCCL sized its kernels for); NCCL
    // 2.26.2 fixed it, confirmed by the reporter (NVIDIA/nccl-tests#287, closed as fixed;
    // NVIDIA/nccl#1637, the maintainer: "no chance to get things to work with 2.25.1").
    {"12.0", "sm_120", "2.26.2", "NVIDIA/nccl-tests#287"},
};

}  // namespace

std::span<const NcclMinimum> nccl_minimums() { return k_minimums; }

std::optional<NcclMinimum> nccl_minimum_for(std::string_view compute_capability) {
  for (const NcclMinimum& row : k_minimums) {
    if (row.compute_capability == compute_capability) return row;
  }
  return std::nullopt;
}

}  // namespace gd
