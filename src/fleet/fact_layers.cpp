#include "fleet/fact_layers.hpp"

#include <algorithm>

namespace gd {
namespace {

// The overview's lines in its order (report/areas/area_support.cpp, build_area_lines), then the
// facts no line shows (system) and names this version does not know (other).
constexpr DiffLayer k_layers[] = {
    {"pci", "NVIDIA GPUs (PCI)"},        {"driver", "NVIDIA kernel module"},  {"devices", "Device nodes"},
    {"container", "Container / VM"},     {"libraries", "Driver libraries"},   {"cuda", "CUDA driver (libcuda)"},
    {"nvml", "NVML (libnvidia-ml)"},     {"kernel-log", "Kernel log"},        {"python", "Python / PyTorch"},
    {"toolkit", "CUDA toolkit (nvcc)"},  {"environment", "Environment"},      {"system", "System"},
    {"other", "Other"},
};

struct Prefix {
  std::string_view prefix;
  std::string_view layer;
};
// Fact name prefixes (the catalogue's sections, core/catalog/) → layer. The first match wins,
// so the longer env.nvidia_ comes before env.
constexpr Prefix k_prefixes[] = {
    {"pci.", "pci"},                   // PCI functions, the GPU table
    {"target.gpu", "pci"},             // a pre-flight's target GPU, in place of the PCI bus
    {"target.driver", "driver"},       // and its target driver, in place of the module
    {"target.image_config", "container"},  // the image's configuration: its variables
    {"kmod.", "driver"},               // the kernel module and its files
    {"modprobe.", "driver"},           // module options and blacklists
    {"secureboot.", "driver"},         // module signing
    {"firmware.", "driver"},           // GSP firmware the module loads
    {"dev.", "devices"},               // /dev/nvidia* nodes
    {"proc.devices.", "devices"},      // the majors in /proc/devices
    {"cgroup.", "container"},          // device cgroup
    {"container.", "container"},       // container runtime and its variables
    {"virt.", "container"},            // hypervisor, WSL
    {"env.nvidia_", "container"},      // NVIDIA_* variables the container toolkit reads
    {"lib.", "libraries"},             // ld.so.cache, the loader's libcuda and NVML
    {"service.", "libraries"},         // persistenced, fabric manager (the overview's library line)
    {"cuda.", "cuda"},                 // the helper's CUDA run
    {"nvml.", "nvml"},                 // NVML and GPU health
    {"klog.", "kernel-log"},           // NVIDIA driver messages
    {"py.", "python"},                 // Python environments
    {"torch.", "python"},              // torch and its GPU code
    {"wheels.", "python"},             // nvidia-* wheels
    {"ml.", "python"},                 // ML stack cross-checks
    {"ext.", "python"},                // --extension libraries
    {"toolkit.", "toolkit"},           // CUDA toolkits, nvcc's host compiler
    {"env.", "environment"},           // CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH, LD_PRELOAD
    {"host.", "system"},               // uname, uid
    {"system.", "system"},             // distribution, libc
};

// Facts that differ between any two runs or nodes and say nothing about health: left out of a
// diff unless -v. Each names a catalogued fact (tests/unit/fleet/test_fact_layers.cpp checks it).
constexpr VolatileFact k_volatile[] = {
    {"host.name", "the node's own name: it is what tells the two apart"},
    {"cuda.helper.duration_ms", "timing"},
    {"cuda.helper.work_ms", "timing"},
    {"cuda.helper.timeline", "timings of each helper step"},
    {"cuda.init.duration_ms", "timing"},
    {"cuda.device.*.timeline", "timings of each step of a GPU's proof"},
    {"cuda.device.*.module.jit_ms", "timing"},
    {"cuda.device.*.kernel.ms", "timing"},
    {"torch.fatbin_scan_ms", "timing"},
    {"cuda.device.*.uuid", "GPU UUID: unique to each GPU"},
    {"nvml.device.*.uuid", "GPU UUID: unique to each GPU"},
    {"dev.gpu_uuids", "GPU UUIDs: unique to each GPU"},
    {"nvml.device.*.process_pids", "process ids"},
    {"nvml.device.*.processes", "how many processes use the GPU: changes with every job"},
    {"cgroup.path", "the cgroup holds the job's or container's id"},
    {"klog.lines", "grows with the kernel log"},
    {"klog.nvrm_lines", "kernel log lines: timestamps, serial numbers"},
};

std::size_t layer_index(std::string_view id) {
  for (std::size_t i = 0; i < std::size(k_layers); ++i) {
    if (k_layers[i].id == id) return i;
  }
  return std::size(k_layers) - 1;
}

}  // namespace

std::span<const DiffLayer> diff_layers() { return k_layers; }

std::size_t diff_layer_of(std::string_view fact) {
  for (const Prefix& p : k_prefixes) {
    if (fact.starts_with(p.prefix)) return layer_index(p.layer);
  }
  return layer_index("other");
}

std::span<const VolatileFact> volatile_facts() { return k_volatile; }

bool fact_matches(std::string_view pattern, std::string_view fact) {
  while (true) {
    std::size_t p_end = pattern.find('.');
    std::size_t f_end = fact.find('.');
    std::string_view p = pattern.substr(0, p_end);
    std::string_view f = fact.substr(0, f_end);
    if (p != "*" ? p != f : f.empty()) return false;
    if (p_end == std::string_view::npos || f_end == std::string_view::npos) {
      return p_end == std::string_view::npos && f_end == std::string_view::npos;
    }
    pattern.remove_prefix(p_end + 1);
    fact.remove_prefix(f_end + 1);
  }
}

bool is_volatile_fact(std::string_view fact) {
  return std::any_of(std::begin(k_volatile), std::end(k_volatile),
                     [&](const VolatileFact& v) { return fact_matches(v.pattern, fact); });
}

}  // namespace gd
