#pragma once
// Each GPU's health as NVML reports it (nvml.device.N.* facts) and the sums the health rules
// test (nvml.health.*): ECC errors, row remapping and retired pages, the driver's recovery
// action, InfoROM, compute and MIG modes, the fabric, the PCIe link, clock slowdowns and
// persistence. A query a GPU does not support (NVML_ERROR_NOT_SUPPORTED, normal on GeForce and
// older drivers) leaves that GPU's fact unknown and counts as "not affected" in the sums; any
// other failure (a missing symbol, no permission) leaves the sum unknown.

#include <string>

#include "core/fact_set.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace gd {

/// Records the health of the NVML devices of a reply whose nvmlInit succeeded.
void record_nvml_health(const HelperReply& reply, FactSet& facts);

/// The sums without devices to look at: unknown, for `why`.
void record_no_nvml_health(FactSet& facts, const std::string& why, const std::string& source);

}  // namespace gd
