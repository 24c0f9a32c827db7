#include "core/fact_catalog.hpp"

#include "util/spelling.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace gd {
namespace {

using T = FactType;

// One row per fact: name, type, meaning. Probes set them; rules name them.
constexpr std::array k_fact_catalog = {
    // The run itself.
    FactSpec{"host.arch", T::string, "machine architecture from uname (x86_64, aarch64)"},
    FactSpec{"host.kernel_release", T::string, "kernel release from uname"},
    FactSpec{"host.uid", T::integer, "effective user id gpudoctor ran as (0 = root)"},

    // Environment (allowlisted variables only).
    FactSpec{"env.cuda_visible_devices", T::string, "CUDA_VISIBLE_DEVICES as set for the user (absent when unset)"},
    FactSpec{"env.ld_library_path", T::string, "LD_LIBRARY_PATH as set for the user"},
    FactSpec{"env.ld_preload", T::string, "LD_PRELOAD as set for the user"},

    // NVIDIA kernel module, as far as issue 2 needs it.
    FactSpec{"kmod.nvidia.loaded", T::boolean, "/proc/driver/nvidia exists: the nvidia kernel module is loaded"},
    FactSpec{"kmod.nvidia.version", T::version, "version of the loaded nvidia module (/proc/driver/nvidia/version)"},
    FactSpec{"kmod.nvidia.flavor", T::string, "'open' or 'proprietary' kernel module (from the NVRM version line)"},

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
    FactSpec{"cuda.device.*.name", T::string, "device name (cuDeviceGetName)"},
    FactSpec{"cuda.device.*.uuid", T::string, "device UUID (GPU-...)"},
    FactSpec{"cuda.device.*.pci_bus_id", T::string, "PCI bus id (cuDeviceGetPCIBusId)"},
    FactSpec{"cuda.device.*.compute_capability", T::version, "compute capability major.minor"},
    FactSpec{"cuda.device.*.total_memory_mib", T::integer, "total device memory in MiB"},
    FactSpec{"cuda.device.*.context.result", T::integer, "CUresult of retaining the primary context"},
    FactSpec{"cuda.device.*.alloc.result", T::integer, "CUresult of a small cuMemAlloc in that context"},

    // The second run with a cleaned environment (only when the first one failed).
    FactSpec{"cuda.clean_env.ran", T::boolean, "a second helper run without LD_LIBRARY_PATH/LD_PRELOAD/CUDA_VISIBLE_DEVICES happened"},
    FactSpec{"cuda.clean_env.status", T::string, "helper status of the clean-environment run"},
    FactSpec{"cuda.clean_env.libcuda.loaded", T::boolean, "libcuda loaded in the clean-environment run"},
    FactSpec{"cuda.clean_env.libcuda.path", T::string, "libcuda file mapped in the clean-environment run"},
    FactSpec{"cuda.clean_env.init.result", T::integer, "cuInit result in the clean-environment run"},
    FactSpec{"cuda.clean_env.device_count", T::integer, "device count in the clean-environment run"},
    FactSpec{"cuda.clean_env.removed", T::list, "variables the clean run removed that were set (NAME=value)"},

    // NVML, loaded by the same helper.
    FactSpec{"nvml.loaded", T::boolean, "dlopen(\"libnvidia-ml.so.1\") succeeded"},
    FactSpec{"nvml.dlerror", T::string, "dlerror() text when NVML did not load"},
    FactSpec{"nvml.path", T::string, "real path of the libnvidia-ml file the loader mapped"},
    FactSpec{"nvml.init.result", T::integer, "nvmlReturn_t of nvmlInit_v2 (18 = driver/library version mismatch)"},
    FactSpec{"nvml.init.text", T::string, "nvmlErrorString of the nvmlInit_v2 result"},
    FactSpec{"nvml.driver_version", T::version, "nvmlSystemGetDriverVersion (the kernel module's version)"},
    FactSpec{"nvml.device_count", T::integer, "nvmlDeviceGetCount_v2"},
    FactSpec{"nvml.device.*.name", T::string, "device name from NVML"},
    FactSpec{"nvml.device.*.uuid", T::string, "device UUID from NVML"},
    FactSpec{"nvml.device.*.pci_bus_id", T::string, "PCI bus id from NVML"},
};

// `pattern` may contain `*` segments that match one all-digit segment of `name`.
bool name_matches(std::string_view pattern, std::string_view name) {
  while (true) {
    std::size_t pdot = pattern.find('.');
    std::size_t ndot = name.find('.');
    std::string_view pseg = pattern.substr(0, pdot);
    std::string_view nseg = name.substr(0, ndot);
    if (pseg == "*") {
      if (nseg.empty() || !std::all_of(nseg.begin(), nseg.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        return false;
      }
    } else if (pseg != nseg) {
      return false;
    }
    if (pdot == std::string_view::npos || ndot == std::string_view::npos) {
      return pdot == ndot;
    }
    pattern.remove_prefix(pdot + 1);
    name.remove_prefix(ndot + 1);
  }
}

}  // namespace

std::span<const FactSpec> fact_catalog() { return k_fact_catalog; }

std::optional<FactSpec> find_fact_spec(std::string_view name) {
  for (const FactSpec& spec : k_fact_catalog) {
    if (name_matches(spec.name, name)) {
      return spec;
    }
  }
  return std::nullopt;
}

std::string_view closest_fact_name(std::string_view name) {
  std::vector<std::string_view> names;
  for (const FactSpec& spec : k_fact_catalog) {
    names.push_back(spec.name);
  }
  return closest_name(name, names);
}

}  // namespace gd
