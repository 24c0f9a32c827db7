#include "probes/container/containers.hpp"
#include "core/fact_key.hpp"
#include "probes/cuda/cuda_driver.hpp"
#include "probes/toolkit/cuda_toolkits.hpp"
#include "probes/devices/device_nodes.hpp"
#include "probes/cross_checks/driver_consistency.hpp"
#include "probes/environment/environment.hpp"
#include "probes/driver/firmware.hpp"
#include "probes/kernel_log/kernel_log.hpp"
#include "probes/iommu/iommu_probe.hpp"
#include "probes/libraries/libraries.hpp"
#include "probes/limits/collective_limits.hpp"
#include "probes/nccl/nccl_probe.hpp"
#include "probes/cross_checks/ml_consistency.hpp"
#include "probes/cross_checks/gpu_busy.hpp"
#include "probes/cross_checks/proof_coverage.hpp"
#include "probes/driver/nvidia_module.hpp"
#include "probes/pci/pci.hpp"
#include "probes/probe.hpp"
#include "probes/python/python_stack.hpp"
#include "probes/rdma/rdma_probe.hpp"
#include "probes/nvlink/imex_channels.hpp"
#include "probes/system/services.hpp"
#include "probes/system/system.hpp"
#include "probes/target/target_host.hpp"

#include "core/all_layers.hpp"

#include <array>
#include <cerrno>

namespace gd {
namespace {

constexpr const Layer& pci = layer_named("pci");
constexpr const Layer& driver = layer_named("driver");
constexpr const Layer& devices = layer_named("devices");
constexpr const Layer& container = layer_named("container");
constexpr const Layer& libraries = layer_named("libraries");
constexpr const Layer& cuda = layer_named("cuda");
constexpr const Layer& kernel_log = layer_named("kernel-log");
constexpr const Layer& iommu = layer_named("iommu");
constexpr const Layer& limits = layer_named("limits");
constexpr const Layer& nccl = layer_named("nccl");
constexpr const Layer& rdma = layer_named("rdma");
constexpr const Layer& python = layer_named("python");
constexpr const Layer& toolkit = layer_named("toolkit");
constexpr const Layer& environment = layer_named("environment");
constexpr const Layer& system = layer_named("system");
constexpr const Layer& cross_checks = layer_named("cross-checks");
constexpr const Layer& nvlink = layer_named("nvlink");

constexpr ProbeRuns preflight_only = ProbeRuns::preflight_only;

// Later probes may read facts of earlier ones (firmware needs the module version and the GPU
// families, services whether this is a container and who made ld.so.cache), so the order follows
// the layers from the PCI slot up, whatever the overview's order (core/all_layers.hpp).
constexpr std::array k_probes = {
    ProbeEntry{system, "system", probe_system},                 // uname, uid: context for every other area
    ProbeEntry{environment, "environment", probe_environment},  // the user's CUDA-relevant variables
    // A pre-flight's host: the target GPU and driver in place of the bus and the module.
    ProbeEntry{pci, "target_host", probe_target_host, preflight_only},
    ProbeEntry{pci, "pci", probe_pci},                          // what hardware is there
    ProbeEntry{driver, "nvidia_module", probe_nvidia_module},   // the kernel side
    ProbeEntry{driver, "firmware", probe_gsp_firmware},         // needs module version and GPU families
    ProbeEntry{devices, "device_nodes", probe_device_nodes},    // the kernel's doors for user space
    ProbeEntry{container, "containers", probe_containers},      // what stands between the user and /dev
    ProbeEntry{container, "target_container", probe_target_container, preflight_only},  // the image runs in one
    ProbeEntry{limits, "collective_limits", probe_collective_limits},  // /dev/shm, memlock, RDMA: needs dev.gpu_nodes
    ProbeEntry{rdma, "rdma", probe_rdma},  // HCAs, GPUDirect, RoCE GIDs, NIC affinity: needs pci, kmod, host, env
    ProbeEntry{libraries, "libraries", probe_libraries},        // which user-space driver would load
    ProbeEntry{libraries, "target_libraries", probe_target_libraries, preflight_only},  // the runtime injects them
    ProbeEntry{toolkit, "cuda_toolkits", probe_cuda_toolkits},  // nvcc, and what an extension build would use
    ProbeEntry{system, "services", probe_services},             // distribution, libc, daemons
    ProbeEntry{nvlink, "imex_channels", probe_imex_channels},   // /dev/nvidia-caps-imex-channels (multi-node NVLink)
    ProbeEntry{kernel_log, "kernel_log", probe_kernel_log},     // what the driver said
    ProbeEntry{iommu, "iommu", probe_iommu},                    // IOMMU, ACS, faults: needs pci and the kernel log's lines
    ProbeEntry{python, "python_stack", probe_python_stack},     // the Python environment, torch and its GPU code: reads no
    // CUDA fact, so it runs (with NCCL's) while the helper still works, not after its reply
    ProbeEntry{nccl, "nccl", probe_nccl},  // NCCL's copies and variables: needs python, libraries, limits, pci
    ProbeEntry{cuda, "cuda_driver", probe_cuda_driver},         // libcuda + NVML in the helper (slowest)
    ProbeEntry{cross_checks, "driver_consistency", probe_driver_consistency},  // module vs user-space versions: needs all above
    ProbeEntry{cross_checks, "gpu_busy", probe_gpu_busy},  // a failed context: another job's GPU, or a fault: needs cuda, nvml
    ProbeEntry{cross_checks, "proof_coverage", probe_proof_coverage},  // did CUDA prove every GPU on the bus: needs pci, cuda
    // torch against the GPUs, driver and toolkit: needs all above. The python layer's (ml.*): it
    // judges the user's environment, and --scope node leaves it out with it.
    ProbeEntry{python, "ml_consistency", probe_ml_consistency},
};

// What --scope node leaves out (the environment layers: the invoking user's Python environment
// and toolkit choice) is unknown, with the reason, rather than missing.
void set_environment_facts_unchecked(FactSet& facts) {
  for (const Layer& layer : all_layers()) {
    if (layer.kind != LayerKind::environment) continue;
    for (CatalogSection section : layer.sections) {
      for (const FactSpec& spec : section()) {
        if (spec.name.find('*') == std::string_view::npos) {
          facts.set_unknown(FactName::unchecked(spec.name), std::string(k_not_checked_node_scope), "scope:node");
        }
      }
    }
  }
}

}  // namespace

std::span<const ProbeEntry> all_probes() { return k_probes; }

bool probe_runs(const ProbeEntry& probe, const ProbeOptions& options) {
  const bool preflight = options.target.has_value();
  if (probe.runs == ProbeRuns::preflight_only) return preflight;
  if (preflight && probe.layer.kind == LayerKind::host) return false;  // the target's facts stand in
  if (options.node_scope && probe.layer.kind == LayerKind::environment) return false;
  return true;
}

FactSet collect_facts(Host& host, const ProbeOptions& options) {
  FactSet facts;
  // The helper is the slowest part (cuInit, a context and a kernel per GPU): it starts first
  // and works while the host probes read files; the cuda_driver probe collects its reply.
  if (options.run_cuda_helper) {
    host.start_cuda_helper(first_helper_request(options));
  }
  if (options.node_scope) set_environment_facts_unchecked(facts);
  if (!options.target) {
    facts.set_absent("target.gpu"_fact, "preflight", "not a pre-flight check (--target-gpu)");
    facts.set_absent("target.driver"_fact, "preflight", "not a pre-flight check (--target-driver)");
  }
  for (const ProbeEntry& probe : k_probes) {
    if (probe_runs(probe, options)) probe.run(host, options, facts);
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
