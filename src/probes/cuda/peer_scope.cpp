#include "probes/cuda/peer_scope.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "probes/cuda/cuda_result_names.hpp"

namespace gd {
namespace {

constexpr int k_all_pairs_max_gpus = 8;  // as the helper's cuda_peer.c

}  // namespace

bool in_peer_scope(int a, int b, int n) { return a != b && (n <= k_all_pairs_max_gpus || a + 1 == b || b + 1 == a); }

const HelperCudaDevice* find_cuda_device(const HelperReply& reply, int index) {
  auto it = std::find_if(reply.cuda_devices.begin(), reply.cuda_devices.end(),
                         [index](const HelperCudaDevice& d) { return d.index == index; });
  return it == reply.cuda_devices.end() ? nullptr : &*it;
}

const HelperPeerPair* find_peer_pair(const HelperReply& reply, int a, int b) {
  auto it = std::find_if(reply.peer_pairs.begin(), reply.peer_pairs.end(),
                         [&](const HelperPeerPair& p) { return p.source == a && p.destination == b; });
  return it == reply.peer_pairs.end() ? nullptr : &*it;
}

std::string peer_gpu_name(const HelperReply& reply, int index) {
  const HelperCudaDevice* device = find_cuda_device(reply, index);
  if (device && device->pci_bus_id) return fmt::format("GPU {} ({})", index, *device->pci_bus_id);
  return fmt::format("GPU {}", index);
}

std::string peer_pair_name(const HelperReply& reply, int a, int b) {
  return fmt::format("{} -> {}", peer_gpu_name(reply, a), peer_gpu_name(reply, b));
}

std::string peer_call_text(const HelperCall& call) {
  int code = call.result.value_or(-1);
  if (call.error) return *call.error;
  std::string_view name = call.name ? std::string_view(*call.name) : cuda_result_name(code);
  return name.empty() ? std::to_string(code) : fmt::format("{} {}", code, name);
}

}  // namespace gd
