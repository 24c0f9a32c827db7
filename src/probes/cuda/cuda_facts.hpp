#pragma once
// Facts from the CUDA helper: libcuda, cuInit, devices, contexts, the kernel proof (probes/cuda/cuda_driver);
// NVML, which the same helper loads, is probes/nvml/nvml_facts.hpp.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_cuda_facts[] = {
    // The run itself.
    // Environment (allowlisted variables only).
    // NVIDIA kernel module, as far as issue 2 needs it.
    // The helper process that loads libcuda and NVML.
    FactSpec{"cuda.helper.status", T::string,
             "how the CUDA helper ended: ok, timeout, crashed, exit-failure, no-glibc-loader, exec-failed, "
             "protocol-error"},
    FactSpec{"cuda.helper.signal", T::string, "signal that ended the helper (SIGSEGV, ...) when it crashed"},
    FactSpec{"cuda.helper.stage", T::string, "last step the helper started (dlopen-cuda, cuInit, context, nvmlInit, ...)"},
    FactSpec{"cuda.helper.duration_ms", T::integer, "wall time of the helper run in milliseconds"},
    FactSpec{"cuda.helper.work_ms", T::integer, "time the helper spent on its own work (dlopen, cuInit, devices, contexts, NVML)"},
    FactSpec{"cuda.helper.timeline", T::list, "each helper step with how long it took ('cuInit 117 ms')"},
    FactSpec{"cuda.helper.loader", T::string, "the glibc dynamic loader the helper ran under"},
    FactSpec{"cuda.helper.stdout", T::string, "what libcuda/NVML printed on stdout (cut when long)"},
    FactSpec{"cuda.helper.stderr", T::string, "what libcuda/NVML printed on stderr (cut when long)"},
    FactSpec{"cuda.helper.timeout_ms", T::integer, "the timeout the helper ran with"},
    // libcuda as the helper saw it (first run, user's environment).
    FactSpec{"cuda.libcuda.loaded", T::boolean, "dlopen(\"libcuda.so.1\") succeeded"},
    FactSpec{"cuda.libcuda.dlerror", T::string, "dlerror() text when libcuda did not load"},
    FactSpec{"cuda.libcuda.path", T::string, "real path of the libcuda file the loader mapped"},
    FactSpec{"cuda.libcuda.is_stub", T::boolean,
             "the loaded libcuda is the toolkit's link-time stub (path under stubs/ or result 34)"},
    FactSpec{"cuda.driver_version.result", T::integer, "CUresult of cuDriverGetVersion"},
    FactSpec{"cuda.driver_version", T::integer, "cuDriverGetVersion value (1000*major + 10*minor, 13000 = 13.0)"},
    FactSpec{"cuda.driver_version.text", T::version, "cuDriverGetVersion as major.minor"},
    FactSpec{"cuda.init.result", T::integer, "CUresult of cuInit(0)"},
    FactSpec{"cuda.init.name", T::string, "name of the cuInit result (CUDA_ERROR_NO_DEVICE)"},
    FactSpec{"cuda.init.text", T::string, "cuGetErrorString of the cuInit result"},
    FactSpec{"cuda.init.duration_ms", T::integer, "how long cuInit(0) took in milliseconds"},
    FactSpec{"cuda.device_count", T::integer, "cuDeviceGetCount after a successful cuInit"},
    FactSpec{"cuda.context.failed_count", T::integer, "devices on which context creation or a small allocation failed"},
    FactSpec{"cuda.context.failures", T::list, "'ordinal: step result NAME' for each device whose context or allocation failed"},
    FactSpec{"cuda.context.busy", T::list,
             "GPUs whose context or allocation failed because other processes hold them (out of memory with their memory in use, "
             "or refused in exclusive mode): 'GPU N (bus): what failed; memory in use; the processes'"},
    FactSpec{"cuda.context.busy_count", T::integer, "how many GPUs cuda.context.busy names"},
    FactSpec{"cuda.context.busy_gpus", T::string, "those GPUs as nvidia-smi -i takes them (UUIDs, comma-separated); absent when none"},
    FactSpec{"cuda.context.fault_count", T::integer,
             "devices whose context or allocation failed with no other process to explain it (what a node fault looks like)"},
    FactSpec{"cuda.context.faults", T::list, "those failures, as cuda.context.failures writes them"},
    FactSpec{"cuda.device.*.name", T::string, "device name (cuDeviceGetName)"},
    FactSpec{"cuda.device.*.uuid", T::string, "device UUID (GPU-...)"},
    FactSpec{"cuda.device.*.pci_bus_id", T::string, "PCI bus id (cuDeviceGetPCIBusId)"},
    FactSpec{"cuda.device.*.compute_capability", T::version, "compute capability major.minor"},
    FactSpec{"cuda.device.*.total_memory_mib", T::integer, "total device memory in MiB"},
    FactSpec{"cuda.device.*.context.result", T::integer, "CUresult of retaining the primary context"},
    FactSpec{"cuda.device.*.alloc.result", T::integer, "CUresult of a small cuMemAlloc in that context"},
    FactSpec{"cuda.device.*.busy", T::boolean,
             "true: its context or allocation failed and other processes hold the GPU (cuda.context.busy); false: it did not fail so, or nothing explains the failure"},
    FactSpec{"cuda.device.*.timeline", T::list, "each step of the GPU's proof with how long it took ('context 112 ms')"},
    FactSpec{"cuda.device.*.stuck", T::string, "the step the GPU's thread was still in at the helper's deadline"},
    FactSpec{"cuda.device.*.crashed", T::string, "the signal and step where the driver crashed in the GPU's thread"},
    // The kernel proof: a PTX module JIT-compiled by the driver, launched over 4,096 threads,
    // copied back and checked element by element (src/helper/kernel_proof.h).
    FactSpec{"cuda.device.*.module.result", T::integer, "CUresult of cuModuleLoadDataEx on the proof's PTX (the JIT)"},
    FactSpec{"cuda.device.*.module.jit_ms", T::integer, "how long loading (JIT-compiling) the proof module took"},
    FactSpec{"cuda.device.*.module.log", T::string, "the JIT compiler's error log"},
    FactSpec{"cuda.device.*.kernel.result", T::integer, "the CUresult where the kernel failed (launch, synchronize or copy)"},
    FactSpec{"cuda.device.*.kernel.ms", T::integer, "launch to synchronize of the proof kernel"},
    FactSpec{"cuda.device.*.check", T::string, "ok, or wrong: the kernel's result checked on the host"},
    FactSpec{"cuda.device.*.check.detail", T::string, "the first wrong element: 'element 17 is 0x.. instead of 0x..'"},
    FactSpec{"cuda.kernel.proven_count", T::integer, "GPUs on which context, allocation and the proof kernel all worked and the result was right"},
    FactSpec{"cuda.proof.every_pci_gpu", T::boolean, "CUDA proved as many GPUs as the PCI bus shows NVIDIA GPUs (unknown when some were not offered to it: CUDA_VISIBLE_DEVICES, the container's devices, MIG, other processes' memory)"},
    FactSpec{"cuda.kernel.module_failures", T::list, "'GPU N (bus): cuModuleLoadDataEx CODE NAME' for each GPU whose JIT failed"},
    FactSpec{"cuda.kernel.module_result_codes", T::list, "the distinct CUresults of failed module loads ('221')"},
    FactSpec{"cuda.kernel.launch_failures", T::list, "'GPU N (bus): call CODE NAME' for each GPU whose kernel failed or crashed the driver"},
    FactSpec{"cuda.kernel.launch_result_codes", T::list, "the distinct CUresults of failed kernels ('719')"},
    FactSpec{"cuda.kernel.wrong_results", T::list, "'GPU N (bus): element I is X instead of Y' for each GPU that computed wrong"},
    FactSpec{"cuda.devices.stuck", T::list, "'GPU N (bus): stuck in STEP' for each GPU whose proof had not finished at the deadline"},
    FactSpec{"cuda.devices.stuck_count", T::integer, "how many GPUs were stuck"},
    FactSpec{"cuda.devices.stuck_with_time", T::integer, "stuck GPUs that had at least half the helper's deadline (unknown when cuInit took most of it)"},
    FactSpec{"cuda.kernel.failed_gpus", T::string, "the GPUs whose kernel proof failed, as nvidia-smi -i takes them (UUIDs, comma-separated)"},
    FactSpec{"cuda.kernel.wrong_gpus", T::string, "the GPUs that computed a wrong result, as nvidia-smi -i takes them"},
    FactSpec{"cuda.devices.stuck_gpus", T::string, "the stuck GPUs, as nvidia-smi -i takes them"},
    FactSpec{"cuda.devices.not_started", T::integer, "GPUs above the helper's bound of 64 threads, not proven"},
    // The second run with a cleaned environment (only when the first one failed).
    FactSpec{"cuda.clean_env.ran", T::boolean, "a second helper run without LD_LIBRARY_PATH/LD_PRELOAD/CUDA_VISIBLE_DEVICES happened"},
    FactSpec{"cuda.clean_env.status", T::string, "helper status of the clean-environment run"},
    FactSpec{"cuda.clean_env.libcuda.loaded", T::boolean, "libcuda loaded in the clean-environment run"},
    FactSpec{"cuda.clean_env.libcuda.path", T::string, "libcuda file mapped in the clean-environment run"},
    FactSpec{"cuda.clean_env.init.result", T::integer, "cuInit result in the clean-environment run"},
    FactSpec{"cuda.clean_env.device_count", T::integer, "device count in the clean-environment run"},
    FactSpec{"cuda.clean_env.removed", T::list, "variables the clean run removed that were set (NAME=value)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> cuda_facts() { return k_cuda_facts; }

}  // namespace gd::catalog
