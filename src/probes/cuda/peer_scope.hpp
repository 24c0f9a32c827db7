#pragma once
// What the pair proof's facts (peer_pairs) and the pair bandwidth's (peer_bandwidth) both read of
// the helper's reply: which ordered pairs the helper covers, how a GPU and a pair are named, the
// record of one GPU and of one pair, and how a failed call is written.

#include <string>

#include "probes/cuda/helper_reply.hpp"

namespace gd {

/// The ordered pairs A -> B the helper's pair proof covers among `n` GPUs: all of them up to 8
/// GPUs, else each GPU with its neighbours (as src/helper/cuda_peer.c).
bool in_peer_scope(int a, int b, int n);

/// CUDA's record of GPU `index`; nullptr when the reply has none.
const HelperCudaDevice* find_cuda_device(const HelperReply& reply, int index);

/// The record of pair A -> B; nullptr when the reply has none.
const HelperPeerPair* find_peer_pair(const HelperReply& reply, int a, int b);

/// "GPU 0 (0000:18:00.0)", or "GPU 0" without its bus id.
std::string peer_gpu_name(const HelperReply& reply, int index);

/// "GPU 0 (0000:18:00.0) -> GPU 1 (0000:19:00.0)".
std::string peer_pair_name(const HelperReply& reply, int a, int b);

/// "711 CUDA_ERROR_TOO_MANY_PEERS" (cuda.h's name when the driver gave none; the helper's own
/// error text when it wrote one).
std::string peer_call_text(const HelperCall& call);

}  // namespace gd
