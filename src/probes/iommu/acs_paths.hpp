#pragma once
// The acs.* facts: every bridge between two GPUs and between a GPU and an RDMA NIC, its ACS
// control register, and which of them redirect peer traffic up to the root complex.

#include <string>
#include <vector>

#include "core/fact_set.hpp"
#include "probes/iommu/peer_devices.hpp"
#include "sys/host.hpp"

namespace gd {

/// Sets acs.*; `gpus` and `nics` located (probes/iommu/peer_devices locate()).
void set_acs_facts(Host& host, const std::vector<PeerDevice>& gpus, const std::vector<PeerDevice>& nics, FactSet& facts);

/// Sets every acs.* fact unknown with `reason` (the GPUs could not be listed).
void set_acs_unknown(const std::string& reason, FactSet& facts);

}  // namespace gd
