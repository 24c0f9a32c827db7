#pragma once
// Each GPU's NVLink links as the helper's NVML thread read them (protocol 1.3: nvml.device.N.nvlink.*)
// and what they add up to: the nvlink layer's facts (probes/nvlink/nvlink_facts.hpp). Recorded
// here, beside the NVML health, because they come from the same reply; the nvlink layer's folder
// holds the catalogue, the overview line and the fabric's files.

#include <string>

#include "core/fact_set.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace gd {

/// Records the NVLink facts of the NVML devices of a reply whose NVML thread finished.
void record_nvlink(const HelperReply& reply, FactSet& facts);

/// The summaries without devices to look at: unknown, for `why`.
void record_no_nvlink(FactSet& facts, const std::string& why, const std::string& source);

}  // namespace gd
