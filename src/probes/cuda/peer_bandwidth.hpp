#pragma once
// The optional bandwidth of each pair of GPUs (--p2p-bandwidth, helper protocol 1.4): the helper
// timed copies of 8 MiB with CUDA events for each pair its copy-verify proof proved
// (cuda_peer_bandwidth.c). Recorded beside the pair proof (peer_pairs), as p2p.* facts:
// p2p.pair.A.B.bandwidth_mb_per_s per pair and the smallest, median and largest figure, with the
// slowest pair named. Without --p2p-bandwidth the reply has no such line and no fact is set.

#include "core/fact_set.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace gd {

/// MB/s (10^6 bytes per second) of `copies` copies of `bytes` each in `elapsed_ns`; nullopt for a
/// measurement that cannot be read as one (no time, no bytes).
std::optional<std::int64_t> peer_bandwidth_mb_per_s(std::int64_t bytes, std::int64_t copies, std::int64_t elapsed_ns);

/// The bandwidth facts of the pairs of the scope (ordered pairs A -> B of `gpus` GPUs, CUDA's
/// indices), after record_peer_pairs has set each pair's status. Nothing when the helper was not
/// asked to measure.
void record_peer_bandwidth(const HelperReply& reply, FactSet& facts, int gpus);

}  // namespace gd
