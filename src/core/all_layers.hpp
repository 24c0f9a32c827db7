#pragma once
// One row per layer (core/layer.hpp), in the order the overview and a diff show them: from the
// PCI slot up to the user's environment, then the system the run is on, then the cross-checks.
// The fact catalogue joins the rows' sections in this order, the overview calls the rows' builders
// in it; the registry (probes/registry.cpp) runs the probes in their own order, each naming its
// layer, and skips them by the layer's kind.
//
// Adding a layer: a folder probes/<layer>/ with its catalogue section (<layer>_facts.hpp), its
// overview line (<layer>_overview.{hpp,cpp}) and its probe; here, the two includes of its headers
// and its row; in probes/registry.cpp, its probe's entry (naming the row by id, checked when it
// compiles); its rules in rules/<folder>/. README.md "Extending it" lists the files.
//
// The ids, areas and rules/ folders are outputs (a finding's "area", a diff's and fleet's
// layer ids, rule ids): never renamed. The kernel log's id is "kernel-log", as its overview line,
// its diff layer and its rules' area have always been spelled; its facts keep the prefix klog.
// and its rules the folder klog/ (fact names and rule ids are contracts too), and the C++ keeps
// kernel_log for identifiers (probes/kernel_log/, catalog::kernel_log_facts).

#include <span>
#include <stdexcept>
#include <string_view>

#include "core/layer.hpp"
// What the rows name in the layers' folders: each layer's catalogue section (constant data that
// includes only core/fact_catalog.hpp) and its overview line builder's declaration (which includes
// only core/overview.hpp). tests/e2e/test_layering.sh checks that these two kinds of header
// include nothing above core and that no other file of core includes a layer's folder.
#include "probes/container/container_facts.hpp"
#include "probes/cuda/cuda_facts.hpp"
#include "probes/devices/device_facts.hpp"
#include "probes/driver/driver_facts.hpp"
#include "probes/driver/firmware_facts.hpp"
#include "probes/environment/environment_facts.hpp"
#include "probes/iommu/iommu_facts.hpp"
#include "probes/kernel_log/kernel_log_facts.hpp"
#include "probes/libraries/library_facts.hpp"
#include "probes/libraries/service_facts.hpp"
#include "probes/limits/limits_facts.hpp"
#include "probes/nccl/nccl_facts.hpp"
#include "probes/nvml/nvml_facts.hpp"
#include "probes/nvlink/nvlink_facts.hpp"
#include "probes/p2p/p2p_facts.hpp"
#include "probes/pci/pci_facts.hpp"
#include "probes/python/python_facts.hpp"
#include "probes/rdma/rdma_facts.hpp"
#include "probes/system/host_facts.hpp"
#include "probes/system/system_facts.hpp"
#include "probes/toolkit/toolkit_facts.hpp"
#include "probes/container/container_overview.hpp"
#include "probes/cuda/cuda_overview.hpp"
#include "probes/devices/devices_overview.hpp"
#include "probes/driver/driver_overview.hpp"
#include "probes/environment/environment_overview.hpp"
#include "probes/iommu/iommu_overview.hpp"
#include "probes/kernel_log/kernel_log_overview.hpp"
#include "probes/libraries/libraries_overview.hpp"
#include "probes/limits/limits_overview.hpp"
#include "probes/nccl/nccl_overview.hpp"
#include "probes/nvml/nvml_overview.hpp"
#include "probes/nvlink/nvlink_overview.hpp"
#include "probes/p2p/p2p_overview.hpp"
#include "probes/pci/pci_overview.hpp"
#include "probes/python/python_overview.hpp"
#include "probes/rdma/rdma_overview.hpp"
#include "probes/toolkit/toolkit_overview.hpp"

namespace gd {

inline constexpr Layer k_all_layers[] = {
    {.id = "pci",
     .title = "NVIDIA GPUs (PCI)",
     .kind = LayerKind::host,
     .fact_prefixes = {"pci.", "target.gpu"},  // a pre-flight's target GPU stands in for the bus
     .sections = {catalog::pci_facts},
     .areas = {"pci", "hardware"},
     .rule_folders = {{"hardware", Scope::node, Action::fix_config}},
     .overview = areas::pci_overview_line,
     .fleet_facts = {"pci.nvidia_gpu_count", "pci.nvswitch_count"}},
    {.id = "driver",
     .title = "NVIDIA kernel module",
     .kind = LayerKind::host,
     // The module, its options and signing, the GSP firmware it loads; a pre-flight's target driver.
     .fact_prefixes = {"kmod.", "modprobe.", "secureboot.", "firmware.", "target.driver"},
     .sections = {catalog::driver_facts, catalog::firmware_facts},
     .areas = {"driver", "firmware"},
     .rule_folders = {{"driver", Scope::node, Action::update_software},
                      {"firmware", Scope::node, Action::update_software}},
     .overview = areas::driver_overview_line,
     // The module, its type, the GSP firmware it runs, and the GPUDirect RDMA provider.
     .fleet_facts = {"kmod.nvidia.version", "kmod.nvidia.flavor", "kmod.nvidia.gpu_firmware_versions",
                     "kmod.nvidia_peermem.loaded"}},
    {.id = "devices",
     .title = "Device nodes",
     .kind = LayerKind::host,
     .fact_prefixes = {"dev.", "proc.devices."},  // /dev/nvidia* and the majors in /proc/devices
     .sections = {catalog::device_facts},
     .areas = {"devices"},
     .rule_folders = {{"devices", Scope::node, Action::fix_config}},
     .overview = areas::devices_overview_line},
    {.id = "container",
     .title = "Container / VM",
     .kind = LayerKind::image,
     // cgroups, the runtime, the hypervisor, the NVIDIA_* variables the container toolkit reads,
     // and a pre-flight's image configuration.
     .fact_prefixes = {"cgroup.", "container.", "virt.", "env.nvidia_", "target.image_config"},
     .sections = {catalog::container_facts},
     .areas = {"container"},
     // The container's settings come from the job or pod that started it: not the node's.
     .rule_folders = {{"container", Scope::environment, Action::fix_config}},
     .overview = areas::container_overview_line,
     .fleet_facts = {"container.runtime"}},
    {.id = "libraries",
     .title = "Driver libraries",
     .kind = LayerKind::image,
     .fact_prefixes = {"lib.", "service."},  // and persistenced, fabric manager: on this line
     .sections = {catalog::library_facts, catalog::service_facts},
     .areas = {"libraries", "services"},
     .rule_folders = {{"libraries", Scope::node, Action::fix_config},
                      {"services", Scope::node, Action::restart_service}},
     .overview = areas::libraries_overview_line,
     .fleet_facts = {"lib.libcuda.resolved_version", "lib.libnvidia_ml.resolved_version",
                     "service.persistenced.running", "service.fabricmanager.running"}},
    {.id = "cuda",
     .title = "CUDA driver (libcuda)",
     .kind = LayerKind::image,
     .fact_prefixes = {"cuda."},
     .sections = {catalog::cuda_facts},
     .areas = {"cuda"},
     .rule_folders = {{"cuda", Scope::node, Action::fix_config}},
     .overview = areas::cuda_overview_line,
     .fleet_facts = {"cuda.driver_version", "cuda.device_count", "cuda.device.*.name"}},
    {.id = "nvml",
     .title = "NVML (libnvidia-ml)",
     .kind = LayerKind::image,
     .fact_prefixes = {"nvml."},  // the CUDA helper loads NVML too: its probe is cuda's
     .sections = {catalog::nvml_facts},
     .areas = {"nvml"},
     .rule_folders = {{"nvml", Scope::node, Action::reset_gpu}},
     .overview = areas::nvml_overview_line,
     .fleet_facts = {"nvml.driver_version", "nvml.device.*.ecc.enabled", "nvml.device.*.mig.enabled",
                     "nvml.device.*.persistence", "nvml.device.*.compute_mode", "nvml.device.*.fabric.state"}},
    // Each GPU's NVLink links, their versions, far ends and error counters (issue 26 item 3): read
    // by the CUDA helper's NVML thread, so recorded by the cuda probe, like the nvml layer's facts.
    {.id = "nvlink",
     .title = "NVLink and fabric",
     .kind = LayerKind::host,
     .fact_prefixes = {"nvlink."},
     .sections = {catalog::nvlink_facts},
     .areas = {"nvlink"},
     .rule_folders = {{"nvlink", Scope::node, Action::replace_hardware}},
     .overview = areas::nvlink_overview_line,
     .fleet_facts = {"nvlink.gpu.*.links", "nvlink.version"}},
    // Peer-to-peer between the GPUs, proven by data in the CUDA helper (issue 26): its facts come
    // from the helper's reply, as NVML's do, so its probe is cuda's (probes/cuda/peer_pairs).
    {.id = "p2p",
     .title = "Peer-to-peer",
     .kind = LayerKind::image,
     .fact_prefixes = {"p2p."},
     .sections = {catalog::p2p_facts},
     .areas = {"p2p"},
     .rule_folders = {{"p2p", Scope::node, Action::fix_config}},
     .overview = areas::p2p_overview_line},
    {.id = "kernel-log",
     .title = "Kernel log",
     .kind = LayerKind::host,
     .fact_prefixes = {"klog."},
     .sections = {catalog::kernel_log_facts},
     .areas = {"kernel-log", "xid"},
     .rule_folders = {{"klog", Scope::node, Action::reboot}, {"xid", Scope::node, Action::reset_gpu}},
     .overview = areas::kernel_log_overview_line},
    // The IOMMU's mode for the GPUs and RDMA NICs, the PCIe ACS redirect bits of the bridges between
    // them, and the kernel log's IOMMU faults that name them (issue 26): the node's, set by its BIOS
    // and kernel command line.
    {.id = "iommu",
     .title = "IOMMU and PCIe ACS",
     .kind = LayerKind::host,
     .fact_prefixes = {"iommu.", "acs."},
     .sections = {catalog::iommu_facts},
     .areas = {"iommu"},
     .rule_folders = {{"iommu", Scope::node, Action::fix_config}},
     .overview = areas::iommu_overview_line,
     .fleet_facts = {"iommu.active", "iommu.gpu_domain_types", "iommu.cmdline_options"}},
    // /dev/shm, RLIMIT_MEMLOCK, CAP_IPC_LOCK and the RDMA devices of the running process, against
    // its GPUs: what NCCL's shared-memory and RDMA transports need (issue 26). The process's, set by
    // the container runtime or the job that started it: --scope node reads the agent's own, which
    // say nothing of the jobs', so it leaves the layer out.
    {.id = "limits",
     .title = "Limits for collectives",
     .kind = LayerKind::environment,
     .fact_prefixes = {"limits."},
     .sections = {catalog::limits_facts},
     .areas = {"limits"},
     .rule_folders = {{"limits", Scope::environment, Action::fix_config}},
     .overview = areas::limits_overview_line},
    // HCAs and their ports, the GPUDirect RDMA provider, RoCE GIDs and each GPU's nearest NIC
    // (issue 26 item 4): the node's. Its container check reads the limits layer's uverbs facts.
    {.id = "rdma",
     .title = "RDMA and GPUDirect",
     .kind = LayerKind::host,
     .fact_prefixes = {"rdma."},
     .sections = {catalog::rdma_facts},
     .areas = {"rdma"},
     .rule_folders = {{"rdma", Scope::node, Action::fix_config}},
     .overview = areas::rdma_overview_line,
     .fleet_facts = {"rdma.hca_count", "rdma.hca_drivers", "rdma.active_rates", "rdma.gpudirect.provider"}},
    {.id = "python",
     .title = "Python / PyTorch",
     .kind = LayerKind::environment,
     // Environments, torch and its GPU code, nvidia-* wheels, --extension libraries, and the
     // ML stack's cross-checks against the node (ml.*), which go with the environment.
     .fact_prefixes = {"py.", "torch.", "wheels.", "ml.", "ext."},
     .sections = {catalog::python_facts},
     .areas = {"python"},
     .rule_folders = {{"ml", Scope::environment, Action::fix_environment}},
     .overview = areas::python_overview_line,
     .fleet_facts = {"torch.version", "wheels.nvidia[nvidia-nccl*]"}},
    // Every libnccl the stack may load and the one torch would, its version against the GPUs, and
    // the NCCL_* variables against the host (issue 26). The job's choice (its Python environment,
    // its variables): --scope node leaves it out, as it does the limits.
    {.id = "nccl",
     .title = "NCCL",
     .kind = LayerKind::environment,
     .fact_prefixes = {"nccl."},
     .sections = {catalog::nccl_facts},
     .areas = {"nccl"},
     .rule_folders = {{"nccl", Scope::environment, Action::fix_environment}},
     .overview = areas::nccl_overview_line,
     .fleet_facts = {"nccl.versions"}},
    {.id = "toolkit",
     .title = "CUDA toolkit (nvcc)",
     .kind = LayerKind::environment,
     .fact_prefixes = {"toolkit."},
     .sections = {catalog::toolkit_facts},
     .areas = {"toolkit"},
     .rule_folders = {{"toolkit", Scope::environment, Action::fix_environment}},
     .overview = areas::toolkit_overview_line},
    // The variables CUDA reads (CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH, LD_PRELOAD): read in every
    // run, --scope node too (the rules that judge them say scope = "environment").
    {.id = "environment",
     .title = "Environment",
     .kind = LayerKind::image,
     .fact_prefixes = {"env."},
     .sections = {catalog::environment_facts},
     .areas = {"environment"},
     .overview = areas::environment_overview_line},
    // uname, uid, the distribution and libc: context the other layers' rules read; no overview line.
    {.id = "system",
     .title = "System",
     .kind = LayerKind::image,
     .fact_prefixes = {"host.", "system."},
     .sections = {catalog::host_facts, catalog::system_facts},
     .fleet_facts = {"host.kernel_release", "system.os_pretty_name"}},
    // Module against user-space versions, a failed context against the GPU's processes, CUDA's
    // proof against the bus: their facts are the layers' they judge (kmod.*, lib.*, cuda.*).
    {.id = "cross-checks", .title = "Cross-checks", .kind = LayerKind::cross_check},
};

constexpr std::span<const Layer> all_layers() { return k_all_layers; }

constexpr const Layer* find_layer(std::string_view id) {
  for (const Layer& layer : k_all_layers) {
    if (layer.id == id) return &layer;
  }
  return nullptr;
}

/// The row named `id`. The registry and the overview call it in their constant tables, where an
/// id no row has does not compile.
constexpr const Layer& layer_named(std::string_view id) {
  const Layer* layer = find_layer(id);
  if (!layer) throw std::invalid_argument("no layer has this id");
  return *layer;
}

}  // namespace gd
