#pragma once
// Peer-to-peer between the GPUs of this node, proven by data (probes/p2p/peer_pairs): the CUDA
// helper's pair proof (cuda.peer.* lines of protocol 1.3) and NVML's view of the same pairs.
// A pair is named "GPU A (bus id) -> GPU B (bus id)" with CUDA's indices and bus ids.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_p2p_facts[] = {
    FactSpec{"p2p.gpu_count", T::integer,
             "GPUs CUDA sees in this process (the helper's device count): pairs exist from two on; under CUDA_VISIBLE_DEVICES "
             "only the visible ones"},
    FactSpec{"p2p.scope", T::string,
             "which pairs the helper proves: all (every ordered pair, up to 8 GPUs), neighbours (GPU i with i-1 and i+1, "
             "above 8), off (turned off for a benchmark); absent with fewer than two GPUs"},
    FactSpec{"p2p.pairs", T::integer, "ordered pairs of the scope: n*(n-1) for all, 2*(n-1) for neighbours"},
    FactSpec{"p2p.pairs_with_access", T::integer, "pairs for which cuDeviceCanAccessPeer answered 1"},
    FactSpec{"p2p.pairs_no_access", T::list,
             "pairs for which cuDeviceCanAccessPeer answered 0: 'GPU 0 (0000:18:00.0) -> GPU 1 (0000:19:00.0)'"},
    FactSpec{"p2p.pairs_no_access_count", T::integer, "number of pairs without peer access"},
    FactSpec{"p2p.pairs_tested", T::integer, "pairs that claim access and whose copy was tried (peer access enabled or its enable failed)"},
    FactSpec{"p2p.pairs_proven", T::integer,
             "pairs whose copy-engine copy (cuMemcpyPeer after cuCtxEnablePeerAccess) arrived with every element right"},
    FactSpec{"p2p.pairs_wrong", T::list,
             "pairs that claim access, whose calls all returned success, and whose data arrived wrong or not at all: both GPUs, "
             "the first wrong element, its value and the expected one"},
    FactSpec{"p2p.pairs_wrong_count", T::integer, "number of pairs whose data arrived wrong or not at all"},
    FactSpec{"p2p.pairs_enable_failed", T::list,
             "pairs that claim access whose cuCtxEnablePeerAccess failed, with the code (711 CUDA_ERROR_TOO_MANY_PEERS, "
             "217 CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)"},
    FactSpec{"p2p.pairs_enable_failed_count", T::integer, "number of pairs whose peer access could not be enabled"},
    FactSpec{"p2p.pairs_copy_failed", T::list,
             "pairs whose peer access was enabled but whose copy, the wait for it or the read-back returned an error, with the call and code"},
    FactSpec{"p2p.pairs_copy_failed_count", T::integer, "number of pairs whose copy returned an error"},
    FactSpec{"p2p.pairs_failed_count", T::integer, "pairs that claim access and failed in any way: wrong data, enable or copy errors"},
    FactSpec{"p2p.pairs_not_tested", T::list,
             "pairs that claim access but were not copied, with the reason: a GPU whose own proof failed or that another job holds, "
             "a GPU not ready by the deadline, a hang or crash in the pair's step"},
    FactSpec{"p2p.pairs_not_tested_count", T::integer, "number of pairs not tested"},
    FactSpec{"p2p.no_access_at_all", T::boolean,
             "two GPUs or more and cuDeviceCanAccessPeer answered 0 for every pair: NCCL goes through host memory (SHM) or the network"},
    FactSpec{"p2p.capability_mismatch", T::list,
             "pairs for which CUDA's cuDeviceCanAccessPeer and NVML's P2P read/write status (matched by bus id) disagree"},
    FactSpec{"p2p.capability_mismatch_count", T::integer, "number of pairs where CUDA and NVML disagree"},
    FactSpec{"p2p.nvlink_pairs", T::integer, "pairs whose NVML P2P status for NVLink is OK"},
    FactSpec{"p2p.duration_ms_max", T::integer, "the slowest pair's enable, copy, read-back and check, in ms"},
    FactSpec{"p2p.pair.*.*.status", T::string,
             "pair A -> B: proven, wrong, enable-failed, copy-failed, no-access, not-tested (CUDA indices)"},
    FactSpec{"p2p.pair.*.*.detail", T::string, "what went wrong for the pair, or why it was not tested"},
    FactSpec{"p2p.pair.*.*.duration_us", T::integer, "pair A -> B: from enabling peer access to the end of the check"},
    FactSpec{"p2p.pair.*.*.nvml", T::string,
             "NVML's view of pair A -> B: P2P read, write and NVLink status and the topology's common ancestor"},
    // --p2p-bandwidth only (helper protocol 1.4): without it none of these is set.
    FactSpec{"p2p.pair.*.*.bandwidth_mb_per_s", T::integer,
             "pair A -> B, --p2p-bandwidth: MB/s (10^6 bytes per second) of copy-engine copies of 8 MiB from A into B "
             "(cuMemcpyPeerAsync timed with CUDA events, one pair of the node at a time); unknown with the reason when a "
             "proven pair was not timed, absent for a pair that was not proven"},
    FactSpec{"p2p.bandwidth_copy_bytes", T::integer, "--p2p-bandwidth: the bytes of each timed copy (8 MiB)"},
    FactSpec{"p2p.bandwidth_pairs_measured", T::integer, "--p2p-bandwidth: pairs with a bandwidth figure"},
    FactSpec{"p2p.bandwidth_not_measured", T::list,
             "--p2p-bandwidth: proven pairs without a figure, with the reason (a GPU's 8 MiB could not be allocated, "
             "the 2 s budget was spent, a timed copy failed or hung)"},
    FactSpec{"p2p.bandwidth_not_measured_count", T::integer, "--p2p-bandwidth: number of proven pairs without a figure"},
    FactSpec{"p2p.bandwidth_mb_per_s_min", T::integer, "--p2p-bandwidth: the smallest pair figure, MB/s"},
    FactSpec{"p2p.bandwidth_mb_per_s_median", T::integer, "--p2p-bandwidth: the median pair figure, MB/s"},
    FactSpec{"p2p.bandwidth_mb_per_s_max", T::integer, "--p2p-bandwidth: the largest pair figure, MB/s"},
    FactSpec{"p2p.bandwidth_slowest_pair", T::string, "--p2p-bandwidth: the pair with the smallest figure: 'GPU 0 (0000:18:00.0) -> GPU 1 (0000:19:00.0)'"},
};

constexpr std::span<const FactSpec> p2p_facts() { return k_p2p_facts; }

}  // namespace gd::catalog
