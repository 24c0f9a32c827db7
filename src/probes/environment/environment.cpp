#include "probes/environment/environment.hpp"
#include "core/fact_key.hpp"

namespace gd {
namespace {

struct EnvFact {
  std::string_view variable;
  FactName fact;
};

// Variables that change which libcuda loads or which GPUs CUDA sees, and NCCL's.
constexpr EnvFact k_env_facts[] = {
    {"CUDA_VISIBLE_DEVICES", "env.cuda_visible_devices"_fact},  // hides or renumbers GPUs
    {"LD_LIBRARY_PATH", "env.ld_library_path"_fact},            // can put a stub or compat libcuda first
    {"LD_PRELOAD", "env.ld_preload"_fact},                      // can inject a libcuda
    // NCCL's, checked against the host by the nccl layer (probes/nccl/nccl_env_check).
    {"NCCL_SOCKET_IFNAME", "env.nccl_socket_ifname"_fact},  // bootstrap and socket interfaces
    {"NCCL_IB_HCA", "env.nccl_ib_hca"_fact},                // RDMA devices
    {"NCCL_P2P_DISABLE", "env.nccl_p2p_disable"_fact},      // transports turned off: what each costs
    {"NCCL_SHM_DISABLE", "env.nccl_shm_disable"_fact},
    {"NCCL_IB_DISABLE", "env.nccl_ib_disable"_fact},
    {"NCCL_NVLS_ENABLE", "env.nccl_nvls_enable"_fact},
    {"NCCL_P2P_LEVEL", "env.nccl_p2p_level"_fact},
    {"NCCL_TOPO_FILE", "env.nccl_topo_file"_fact},          // must exist and be readable
    {"NCCL_DEBUG", "env.nccl_debug"_fact},                  // shown: what NCCL will print
    {"NCCL_IB_GID_INDEX", "env.nccl_ib_gid_index"_fact},        // the RoCE GID NCCL uses (probes/rdma checks it)
};

}  // namespace

void probe_environment(Host& host, const ProbeOptions&, FactSet& facts) {
  for (const EnvFact& entry : k_env_facts) {
    std::string source = "env:" + std::string(entry.variable);
    if (auto value = host.env(entry.variable)) {
      facts.set(entry.fact, *value, source);
    } else {
      facts.set_absent(entry.fact, source);
    }
  }
}

}  // namespace gd
