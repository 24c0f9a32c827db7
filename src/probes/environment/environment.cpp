#include "probes/environment/environment.hpp"
#include "core/fact_key.hpp"

namespace gd {
namespace {

struct EnvFact {
  std::string_view variable;
  FactName fact;
};

// Variables that change which libcuda loads or which GPUs CUDA sees.
constexpr EnvFact k_env_facts[] = {
    {"CUDA_VISIBLE_DEVICES", "env.cuda_visible_devices"_fact},  // hides or renumbers GPUs
    {"LD_LIBRARY_PATH", "env.ld_library_path"_fact},            // can put a stub or compat libcuda first
    {"LD_PRELOAD", "env.ld_preload"_fact},                      // can inject a libcuda
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
