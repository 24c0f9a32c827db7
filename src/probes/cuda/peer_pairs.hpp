#pragma once
// Peer-to-peer between the GPUs of this node as the helper's pair proof found it (p2p.* facts,
// the p2p layer's: probes/p2p/p2p_facts.hpp). Recorded here because the facts come from the
// helper's reply, as NVML's do (nvml_health). Each ordered pair of the helper's scope gets one
// status: proven (the copy-engine copy arrived with every element right), wrong (every call
// returned success and the data did not arrive, or arrived corrupted), enable-failed,
// copy-failed, no-access (cuDeviceCanAccessPeer 0) or not-tested (with the reason: a GPU whose
// own proof failed, another job's GPU, a hang or crash in the pair's step, the deadline).
// CUDA's answer is compared with NVML's P2P status for the same two GPUs, matched by bus id.

#include <string>

#include "core/fact_set.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace gd {

/// The p2p.* facts of a reply; `not_reached` explains pairs the helper never got to.
void record_peer_pairs(const HelperReply& reply, FactSet& facts, const std::string& not_reached);

/// No reply to read the pairs from: the p2p.* facts unknown, for `why`.
void record_no_peer_pairs(FactSet& facts, const std::string& why, const std::string& source);

}  // namespace gd
