#pragma once
// Facts from NVML, which the CUDA helper loads beside libcuda: the library, nvmlInit, and each
// GPU's health (probes/cuda/cuda_driver, probes/cuda/nvml_health).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_nvml_facts[] = {
    FactSpec{"nvml.loaded", T::boolean, "dlopen(\"libnvidia-ml.so.1\") succeeded"},
    FactSpec{"nvml.dlerror", T::string, "dlerror() text when NVML did not load"},
    FactSpec{"nvml.failure", T::string,
             "why NVML is unusable, in words: the dlerror of libnvidia-ml.so.1, or nvmlInit's result and text "
             "(absent: nvmlInit returned 0)"},
    FactSpec{"nvml.path", T::string, "real path of the libnvidia-ml file the loader mapped"},
    FactSpec{"nvml.init.result", T::integer, "nvmlReturn_t of nvmlInit_v2 (18 = driver/library version mismatch)"},
    FactSpec{"nvml.init.text", T::string, "nvmlErrorString of the nvmlInit_v2 result"},
    FactSpec{"nvml.driver_version", T::version, "nvmlSystemGetDriverVersion (the kernel module's version)"},
    FactSpec{"nvml.device_count", T::integer, "nvmlDeviceGetCount_v2"},
    // GPU health (probes/cuda/nvml_health): per GPU, unknown where NVML does not support a query.
    FactSpec{"nvml.device.*.ecc.enabled", T::boolean, "ECC is on (nvmlDeviceGetEccMode current)"},
    FactSpec{"nvml.device.*.ecc.pending_enabled", T::boolean, "ECC will be on after the next reboot (pending mode)"},
    FactSpec{"nvml.device.*.ecc.uncorrected_volatile", T::integer, "uncorrectable ECC errors since the driver loaded"},
    FactSpec{"nvml.device.*.ecc.uncorrected_aggregate", T::integer, "uncorrectable ECC errors in the GPU's lifetime (InfoROM)"},
    FactSpec{"nvml.device.*.remap.correctable", T::integer, "rows remapped for correctable errors"},
    FactSpec{"nvml.device.*.remap.uncorrectable", T::integer, "rows remapped for uncorrectable errors"},
    FactSpec{"nvml.device.*.remap.pending", T::boolean, "a row remapping waits for a GPU reset"},
    FactSpec{"nvml.device.*.remap.failure", T::boolean, "a row remapping has failed in the past"},
    FactSpec{"nvml.device.*.remap.banks_without_spare_rows", T::integer, "memory banks with no spare row left (remapper histogram 'none')"},
    FactSpec{"nvml.device.*.retired.pending", T::boolean, "retired pages wait for a reboot (GPUs before Ampere)"},
    FactSpec{"nvml.device.*.retired.sbe", T::integer, "pages retired for multiple single-bit errors"},
    FactSpec{"nvml.device.*.retired.dbe", T::integer, "pages retired for double-bit errors"},
    FactSpec{"nvml.device.*.recovery_action", T::integer, "the driver's recovery action (0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset)"},
    FactSpec{"nvml.device.*.inforom_valid", T::boolean,
             "the InfoROM's checksums are right (nvmlDeviceValidateInforom, with --check-inforom; false also when any query answered 14)"},
    FactSpec{"nvml.device.*.persistence", T::boolean, "persistence mode is on (driver state kept without clients)"},
    FactSpec{"nvml.device.*.display_active", T::boolean, "a display is initialised on the GPU (a desktop's GPU)"},
    FactSpec{"nvml.device.*.compute_mode", T::string, "Default, Exclusive_Process, Prohibited (Exclusive_Thread on old GPUs)"},
    FactSpec{"nvml.device.*.processes", T::integer, "compute processes on the GPU other than gpudoctor's helper"},
    FactSpec{"nvml.device.*.process_pids", T::string, "their pids, comma-separated (as NVML reports them)"},
    FactSpec{"nvml.device.*.process_list", T::list,
             "each of them: 'pid 1234 (python): 143000 MiB' (host pids; the name only where gpudoctor runs in the host's PID namespace)"},
    FactSpec{"nvml.device.*.memory.total_mib", T::integer, "the GPU's memory (nvmlDeviceGetMemoryInfo)"},
    FactSpec{"nvml.device.*.memory.used_mib", T::integer, "memory in use by every process and the driver (nvmlDeviceGetMemoryInfo)"},
    FactSpec{"nvml.device.*.mig.enabled", T::boolean, "MIG mode is on"},
    FactSpec{"nvml.device.*.mig.pending_enabled", T::boolean, "MIG mode after the next GPU reset"},
    FactSpec{"nvml.device.*.mig.devices", T::integer, "MIG devices (GPU instance + compute instance) of a GPU in MIG mode, whatever this process may open"},
    FactSpec{"nvml.device.*.mig.device_uuids", T::list, "their UUIDs (MIG-...), as CUDA_VISIBLE_DEVICES takes them"},
    FactSpec{"nvml.device.*.clocks_event_reasons", T::list, "what holds the clocks now (GPU idle, HW slowdown, ...)"},
    FactSpec{"nvml.device.*.pstate", T::integer, "performance state (0 = P0, full performance)"},
    FactSpec{"nvml.device.*.pcie.gen", T::integer, "current PCIe link generation"},
    FactSpec{"nvml.device.*.pcie.width", T::integer, "current PCIe link width"},
    FactSpec{"nvml.device.*.pcie.gen_max", T::integer, "highest PCIe generation of this GPU in this system"},
    FactSpec{"nvml.device.*.pcie.width_max", T::integer, "widest PCIe link of this GPU in this system"},
    FactSpec{"nvml.device.*.pcie.gen_gpu_max", T::integer, "highest PCIe generation of the GPU itself"},
    FactSpec{"nvml.device.*.fabric.state", T::string, "NVLink fabric registration: not-started, in-progress, completed"},
    FactSpec{"nvml.device.*.fabric.health", T::list, "fabric health problems (bandwidth degraded, route unhealthy, ...)"},
    FactSpec{"nvml.device.*.fabric.cluster_uuid", T::string,
             "the NVLink domain the fabric manager registered the GPU in (nvmlGpuFabricInfo clusterUuid), once registration "
             "completed: the GPUs of the nodes of one multi-node NVLink domain share it; absent when NVML gives all zeros "
             "(registered in no multi-node domain: a single-node NVSwitch system)"},
    FactSpec{"nvml.device.*.fabric.clique_id", T::integer,
             "the GPU's NVLink partition (clique) within that domain (nvmlGpuFabricInfo cliqueId), once registration completed"},
    // The health sums the rules test: 'GPU N (bus): detail' for each GPU concerned, with the
    // GPUs as nvidia-smi -i takes them in the matching *_gpus fact.
    FactSpec{"nvml.health.ecc_uncorrected_volatile", T::list, "GPUs with uncorrectable ECC errors since the driver loaded"},
    FactSpec{"nvml.health.ecc_uncorrected_volatile_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.ecc_uncorrected_aggregate", T::list, "GPUs with uncorrectable ECC errors in their lifetime but none since the driver loaded"},
    FactSpec{"nvml.health.ecc_uncorrected_aggregate_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.remap_pending", T::list, "GPUs with a row remapping waiting for a reset"},
    FactSpec{"nvml.health.remap_pending_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.remap_failed", T::list, "GPUs on which a row remapping failed"},
    FactSpec{"nvml.health.remap_failed_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.remap_exhausted", T::list, "GPUs with memory banks that have no spare row left"},
    FactSpec{"nvml.health.remap_exhausted_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.retired_pending", T::list, "GPUs with retired pages waiting for a reboot"},
    FactSpec{"nvml.health.retired_pending_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.recovery_actions", T::list, "GPUs for which the driver asks a recovery action: 'GPU N (bus): GPU_RESET (1)'"},
    FactSpec{"nvml.health.recovery_actions_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.recovery_action_codes", T::list, "the distinct recovery actions asked ('1')"},
    FactSpec{"nvml.health.inforom_corrupt", T::list,
             "GPUs whose InfoROM is corrupt: a query answered NVML_ERROR_CORRUPTED_INFOROM, or --check-inforom's validation failed"},
    FactSpec{"nvml.health.inforom_corrupt_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.compute_prohibited", T::list, "GPUs in compute mode Prohibited (no context can be made)"},
    FactSpec{"nvml.health.compute_prohibited_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.compute_exclusive_busy", T::list, "GPUs in an exclusive compute mode that another process holds: gpudoctor's own context there was refused (46) with another process on it"},
    FactSpec{"nvml.health.compute_exclusive_busy_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.mig_pending", T::list, "GPUs whose MIG mode changes at the next reset"},
    FactSpec{"nvml.health.mig_pending_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.mig_without_cuda_device", T::list, "MIG-enabled GPUs with no MIG device (NVML), or any MIG-enabled GPU when CUDA found no device at all (cuInit 100)"},
    FactSpec{"nvml.health.mig_without_cuda_device_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.fabric_not_registered", T::list, "GPUs of an NVLink fabric not (or not successfully) registered"},
    FactSpec{"nvml.health.fabric_not_registered_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.fabric_degraded", T::list, "GPUs whose fabric reports degraded health or is still training"},
    FactSpec{"nvml.health.fabric_degraded_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.pcie_degraded", T::list, "GPUs whose PCIe link is below its maximum while in P0"},
    FactSpec{"nvml.health.pcie_degraded_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.clocks_slowdown", T::list, "GPUs whose clocks are held down by HW slowdown, thermal or power brake"},
    FactSpec{"nvml.health.clocks_slowdown_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.health.persistence_off", T::list, "GPUs without a display whose persistence mode is off"},
    FactSpec{"nvml.health.persistence_off_gpus", T::string, "those GPUs' UUIDs"},
    FactSpec{"nvml.stuck", T::string, "the NVML step that had not finished at the helper's deadline ('nvmlInit'), or 'crashed: ...'"},
    FactSpec{"nvml.device.*.name", T::string, "device name from NVML"},
    FactSpec{"nvml.device.*.uuid", T::string, "device UUID from NVML"},
    FactSpec{"nvml.device.*.pci_bus_id", T::string, "PCI bus id from NVML"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> nvml_facts() { return k_nvml_facts; }

}  // namespace gd::catalog
