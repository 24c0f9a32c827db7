#include "probes/container/containers.hpp"
#include "probes/cuda/cuda_driver.hpp"
#include "probes/toolkit/cuda_toolkits.hpp"
#include "probes/devices/device_nodes.hpp"
#include "probes/cross_checks/driver_consistency.hpp"
#include "probes/system/environment.hpp"
#include "probes/driver/firmware.hpp"
#include "probes/kernel_log/kernel_log.hpp"
#include "probes/libraries/libraries.hpp"
#include "probes/cross_checks/ml_consistency.hpp"
#include "probes/cross_checks/gpu_busy.hpp"
#include "probes/cross_checks/proof_coverage.hpp"
#include "probes/driver/nvidia_module.hpp"
#include "probes/pci/pci.hpp"
#include "probes/probe.hpp"
#include "probes/python/python_stack.hpp"
#include "probes/system/services.hpp"
#include "probes/system/system.hpp"
#include "probes/target/target_host.hpp"

#include "core/catalog/sections.hpp"

#include <array>
#include <cerrno>

namespace gd {
namespace {

// Later probes may read facts of earlier ones (firmware needs the module version and the GPU
// families), so the order follows the layers from the PCI slot up.
constexpr std::array k_probes = {
    ProbeEntry{"system", probe_system},                // uname, uid: context for every other area
    ProbeEntry{"environment", probe_environment},      // the user's CUDA-relevant variables
    ProbeEntry{"target_host", probe_target_host},      // pre-flight only: the host an image is meant for
    ProbeEntry{"pci", probe_pci},                      // what hardware is there
    ProbeEntry{"nvidia_module", probe_nvidia_module},  // the kernel side
    ProbeEntry{"firmware", probe_gsp_firmware},        // needs module version and GPU families
    ProbeEntry{"device_nodes", probe_device_nodes},    // the kernel's doors for user space
    ProbeEntry{"containers", probe_containers},        // what stands between the user and /dev
    ProbeEntry{"target_container", probe_target_container},  // pre-flight only: the image runs in a container
    ProbeEntry{"libraries", probe_libraries},          // which user-space driver would load
    ProbeEntry{"target_libraries", probe_target_libraries},  // pre-flight only: the runtime injects the driver's
    ProbeEntry{"cuda_toolkits", probe_cuda_toolkits},  // nvcc, and what an extension build would use
    ProbeEntry{"services", probe_services},            // distribution, libc, daemons
    ProbeEntry{"kernel_log", probe_kernel_log},        // what the driver said
    ProbeEntry{"cuda_driver", probe_cuda_driver},      // libcuda + NVML in the helper (slowest)
    ProbeEntry{"python_stack", probe_python_stack},    // the Python environment, torch and its GPU code
    ProbeEntry{"driver_consistency", probe_driver_consistency},  // module vs user-space versions: needs all above
    ProbeEntry{"gpu_busy", probe_gpu_busy},  // a failed context: another job's GPU, or a fault: needs cuda, nvml
    ProbeEntry{"proof_coverage", probe_proof_coverage},  // did CUDA prove every GPU on the bus: needs pci, cuda
    ProbeEntry{"ml_consistency", probe_ml_consistency},  // torch vs GPUs, driver and toolkit: needs all above
};

}  // namespace

std::span<const ProbeEntry> all_probes() { return k_probes; }

namespace {

// What --scope node leaves out: the invoking user's Python environment and toolkit choice, and
// the cross-checks that compare the node with them.
bool is_environment_probe(std::string_view name) {
  return name == "python_stack" || name == "cuda_toolkits" || name == "ml_consistency";
}

void set_environment_facts_unchecked(FactSet& facts) {
  for (auto section : {catalog::python_facts, catalog::toolkit_facts}) {
    for (const FactSpec& spec : section()) {
      if (spec.name.find('*') == std::string_view::npos) {
        facts.set_unknown(spec.name, std::string(k_not_checked_node_scope), "scope:node");
      }
    }
  }
}

// What a pre-flight check does not read: the host layers, which an image does not have (they
// are the target's), and the host's kernel log.
bool is_host_layer_probe(std::string_view name) {
  return name == "pci" || name == "nvidia_module" || name == "firmware" || name == "device_nodes" ||
         name == "kernel_log";
}

bool is_preflight_probe(std::string_view name) {
  return name == "target_host" || name == "target_container" || name == "target_libraries";
}

}  // namespace

FactSet collect_facts(Host& host, const ProbeOptions& options) {
  FactSet facts;
  // The helper is the slowest part (cuInit, a context and a kernel per GPU): it starts first
  // and works while the host probes read files; the cuda_driver probe collects its reply.
  if (options.run_cuda_helper) {
    host.start_cuda_helper(first_helper_request(options));
  }
  if (options.node_scope) set_environment_facts_unchecked(facts);
  if (!options.target) {
    facts.set_absent("target.gpu", "preflight", "not a pre-flight check (--target-gpu)");
    facts.set_absent("target.driver", "preflight", "not a pre-flight check (--target-driver)");
  }
  for (const ProbeEntry& probe : k_probes) {
    if (options.node_scope && is_environment_probe(probe.name)) continue;
    if (options.target ? is_host_layer_probe(probe.name) : is_preflight_probe(probe.name)) continue;
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
