#include "probes/cuda_driver.hpp"
#include "probes/environment.hpp"
#include "probes/nvidia_module.hpp"
#include "probes/probe.hpp"
#include "probes/system.hpp"

#include <array>
#include <cerrno>

namespace gd {
namespace {

constexpr std::array k_probes = {
    ProbeEntry{"system", probe_system},              // uname, uid: context for every other area
    ProbeEntry{"environment", probe_environment},    // the user's CUDA-relevant variables
    ProbeEntry{"nvidia_module", probe_nvidia_module},  // the kernel side, before user space
    ProbeEntry{"cuda_driver", probe_cuda_driver},    // libcuda + NVML in the helper (slowest, last)
};

}  // namespace

std::span<const ProbeEntry> all_probes() { return k_probes; }

FactSet collect_facts(Host& host, const ProbeOptions& options) {
  FactSet facts;
  for (const ProbeEntry& probe : k_probes) {
    probe.run(host, options, facts);
  }
  return facts;
}

std::string unreadable_reason(const IoError& error, Host& host) {
  if ((error.code == EACCES || error.code == EPERM) && host.identity().uid != 0) {
    return "needs root (" + error.describe() + ")";
  }
  return error.describe();
}

}  // namespace gd
