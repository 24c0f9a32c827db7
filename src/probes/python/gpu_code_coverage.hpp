#pragma once
// Which of a CUDA library's GPU architectures cover the library, and which are in only a few of
// its fat binaries: the facts <prefix>sass_covering, sass_partial, ptx_covering, ptx_partial,
// fatbin_arch_counts and fatbins_with_code beside <prefix>sass and <prefix>ptx (the union).
//
// Why the union is not enough: a CUDA program registers each fat binary of a library (one per
// translation unit, or per device link) on its own, and for each one the runtime picks an entry
// that runs on the GPU: a cubin of the GPU's major at or below its minor (an 'a' cubin only on
// exactly its GPU, an 'f' cubin on its family), else PTX at or below the GPU, compiled by the
// driver ("A cubin generated for a certain compute capability is supported to run on any GPU with
// the same major revision and same or higher minor revision", NVIDIA's Blackwell Compatibility
// Guide, 1.2; family-specific targets: NVIDIA's blog "NVIDIA Blackwell and NVIDIA CUDA 12.9
// Introduce Family-Specific Architecture Features"). A kernel whose fat binary holds nothing for
// the GPU fails with "no kernel image is available". torch 2.11.0+cu130's libtorch_cuda.so (the
// real H200 capture) has sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 in all 444 fat binaries, exactly
// torch.cuda.get_arch_list(), and sm_89 in 1, sm_90a in 4, sm_100a and sm_103a in 59, sm_120a
// and sm_121a in 1: the union names 12 architectures, six of which hold a few kernels added for
// one GPU (FlashAttention, CUTLASS) and would leave every other kernel without code.
//
// Covering, precisely: an architecture is covering when at least half of the library's fat
// binaries that hold GPU code (a cubin or PTX; LTO IR alone does not count) carry an entry of it;
// the others are partial. A GPU has kernels in the library when code of a covering architecture
// runs on it (ml_consistency). Half, because a GPU that only partial architectures serve finds no
// code in most of the library's fat binaries, while the architecture list a library is built for
// (TORCH_CUDA_ARCH_LIST, -gencode) applies to every translation unit and reaches all of them; the
// additions seen on the real H200 reach at most 59 of 444 (13%). When no architecture reaches
// half (a library whose fat binaries are each built for their own architectures), there is no
// common list to tell additions from, and every architecture counts as covering, as the union
// did: no GPU is called uncovered on a guess.
//
// Known limit: `nvcc -shared` device-links the objects for its default architecture (sm_75 in
// CUDA 13) and adds that fat binary, one cubin without kernels (test_gpu_code_coverage's nvcc
// case). In a library of many files it is one partial architecture more; in one of a single file
// it is 1 of 2 and covers, which can only hide a missing kernel, never report one falsely.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact_set.hpp"
#include "probes/shared/cuda_fatbin.hpp"

namespace gd {

/// One architecture of a library and how many of its fat binaries carry it.
struct ArchCoverage {
  std::string name;  ///< "sm_90a", "compute_120"
  std::uint32_t containers = 0;
  bool covering = false;
};

struct GpuCodeCoverage {
  std::uint32_t with_code = 0;  ///< fat binaries with a cubin or PTX entry
  std::vector<ArchCoverage> sass;
  std::vector<ArchCoverage> ptx;
  /// Some architecture is in at least half of them; false: none is, and every one counts as covering.
  bool common_list = true;
};

/// Whether `containers` of `with_code` fat binaries is enough to cover the library.
bool covers_library(std::uint32_t containers, std::uint32_t with_code);

/// The coverage of a finished scan's architectures.
GpuCodeCoverage gpu_code_coverage(const FatbinScan& scan);

/// Sets <prefix>sass_covering, sass_partial, ptx_covering, ptx_partial, fatbin_arch_counts
/// ("sm_89 1/444", SASS then PTX) and fatbins_with_code from a scan whose status is ok.
void set_gpu_code_coverage_facts(FactSet& facts, std::string_view prefix, const FatbinScan& scan,
                                 const std::string& source);

/// The names of those facts for `prefix` ("torch." gives torch.sass_covering, ...), to set absent
/// or unknown with <prefix>sass when there is no scan.
std::vector<std::string> gpu_code_coverage_fact_names(std::string_view prefix);

}  // namespace gd
