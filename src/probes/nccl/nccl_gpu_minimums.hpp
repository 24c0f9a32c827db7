#pragma once
// The first NCCL known to work on a GPU architecture, where a source confirms one. Only what a
// source says is here; an architecture without a row is not judged.

#include <optional>
#include <span>
#include <string_view>

namespace gd {

struct NcclMinimum {
  std::string_view compute_capability;  ///< "12.0"
  std::string_view arch;                ///< "sm_120"
  std::string_view minimum;             ///< the first NCCL that works: "2.26.2"
  std::string_view source;              ///< where it is confirmed
};

/// The table (nccl_gpu_minimums.cpp says where each row comes from).
std::span<const NcclMinimum> nccl_minimums();

/// The row for a compute capability ("12.0"), if any.
std::optional<NcclMinimum> nccl_minimum_for(std::string_view compute_capability);

}  // namespace gd
