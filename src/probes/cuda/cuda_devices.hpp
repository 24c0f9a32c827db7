#pragma once
// What the helper proved on each GPU (cuda.device.N.* facts) and the sums the rules test:
// contexts and allocations, the kernel proof (JIT, launch, result check), and GPUs whose thread
// was stuck or crashed inside libcuda while the others finished.

#include <string>

#include "core/fact_set.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace gd {

/// Records the devices of a reply whose cuInit and cuDeviceGetCount succeeded. `not_reached`
/// explains sums the reply cannot give (the helper was killed first).
void record_cuda_devices(const HelperReply& reply, FactSet& facts, const std::string& not_reached);

/// The device sums without a device to count: absent (cuInit failed: `why`) or unknown.
void record_no_cuda_devices(FactSet& facts, bool unknown, const std::string& why, const std::string& source);

}  // namespace gd
