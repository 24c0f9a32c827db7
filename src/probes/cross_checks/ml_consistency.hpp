#pragma once
// The ML stack against the layers below it, after every probe ran: can the installed torch run
// on these GPUs (compiled SASS or PTX for their compute capability among the architectures that
// cover its library, probes/python/gpu_code_coverage.hpp), is its CUDA within what the
// driver supports, does the toolkit an extension build would use match torch and the driver.
// Reads facts only, never the host.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// A GPU code target from a fat binary: "sm_90", "sm_90a", "sm_100f" or "compute_120".
struct GpuTarget {
  int major = 0;
  int minor = 0;
  bool ptx = false;
  char variant = 0;  ///< 'a' (this exact GPU only), 'f' (its family), 0 (plain)
};

std::optional<GpuTarget> parse_gpu_target(std::string_view text);

/// Whether code for `target` runs on a GPU of compute capability major.minor: SASS of the same
/// major at or below its minor (an 'a' target only on exactly that GPU), PTX at or below it
/// (compiled by the driver at load).
bool target_runs_on(const GpuTarget& target, int major, int minor);

/// Whether any of `targets` runs on that GPU.
bool any_target_runs_on(const std::vector<std::string>& targets, int major, int minor);

/// "https://download.pytorch.org/whl/cu128": the index whose wheels carry kernels for a GPU of
/// compute capability `major`.`minor`, given the driver's CUDA major (a cu13x wheel needs a 580+
/// driver). Maxwell, Pascal and Volta only have them in cu126 wheels (torch 2.8+ cu128 dropped
/// Maxwell/Pascal, 2.11 cu128 and every cu130 dropped Volta); Blackwell needs cu128 or newer.
std::string torch_index_for(int major, int minor, std::optional<int> driver_cuda_major);

void probe_ml_consistency(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
