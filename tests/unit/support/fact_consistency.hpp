#pragma once
// Facts that imply or exclude each other on any real host, as the probes produce them. A rule
// fixture that breaks one describes a host that cannot exist (one fact flipped from a positive
// case), so the rule is tested against an impossible world; the fixture tests refuse it, and the
// whole-host tests check that the probes never produce such a set either.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact_key.hpp"
#include "core/fact_set.hpp"

namespace gd::test {

namespace consistency_detail {

inline bool is_present(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(gd::FactName::unchecked(name));
  return fact != nullptr && fact->state == FactState::present;
}

inline bool is_false(const FactSet& facts, FactName name) { return facts.get_bool(gd::FactName::unchecked(name)) == false; }
inline bool is_true(const FactSet& facts, FactName name) { return facts.get_bool(gd::FactName::unchecked(name)) == true; }

inline std::optional<std::int64_t> int_of(const FactSet& facts, FactName name) {
  return is_present(facts, name) ? facts.get_int(gd::FactName::unchecked(name)) : std::nullopt;
}

inline bool nonempty_list(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(gd::FactName::unchecked(name));
  if (fact == nullptr || fact->state != FactState::present) return false;
  const auto* list = std::get_if<std::vector<std::string>>(&fact->value);
  return list != nullptr && !list->empty();
}

}  // namespace consistency_detail

/// Every contradiction in `facts`, one line each ("kmod.nvidia.loaded=false but kmod.nvidia.version
/// is present: ..."); empty when the set could come from a real host.
inline std::vector<std::string> fact_contradictions(const FactSet& facts) {
  using namespace consistency_detail;
  std::vector<std::string> out;
  auto require = [&](bool premise, bool conclusion, std::string text) {
    if (premise && !conclusion) out.push_back(std::move(text));
  };

  // The kernel module: /proc/driver/nvidia/* and /sys/module/nvidia exist only while it is loaded.
  // Under WSL2 there is none: CUDA and NVML reach the Windows driver through /dev/dxg.
  const bool module_unloaded = is_false(facts, "kmod.nvidia.loaded"_fact);
  const bool wsl = is_true(facts, "dev.dxg.present"_fact) || is_true(facts, "lib.wsl.present"_fact);
  for (gd::FactName name : {"kmod.nvidia.version"_fact, "kmod.nvidia.flavor"_fact, "kmod.nvidia.sysfs_version"_fact,
                                "kmod.nvidia.gpu_count"_fact, "dev.gpu_count"_fact}) {
    require(module_unloaded, !is_present(facts, name),
            "kmod.nvidia.loaded=false but " + std::string(name) +
                " is present (it is read from /proc/driver/nvidia or /sys/module/nvidia, which exist only "
                "while the module is loaded)");
  }
  require(module_unloaded, !is_true(facts, "kmod.nvidia_uvm.loaded"_fact),
          "kmod.nvidia.loaded=false but kmod.nvidia_uvm.loaded=true (nvidia-uvm depends on nvidia)");
  require(module_unloaded, !is_present(facts, "proc.devices.nvidia_major"_fact),
          "kmod.nvidia.loaded=false but proc.devices.nvidia_major is present (the module registers it)");

  // A PCI function bound to the nvidia driver means the driver is loaded.
  const Fact* bound = facts.find("pci.drivers_bound"_fact);
  if (bound != nullptr && bound->state == FactState::present) {
    if (const auto* drivers = std::get_if<std::vector<std::string>>(&bound->value)) {
      bool nvidia_bound = std::find(drivers->begin(), drivers->end(), "nvidia") != drivers->end();
      require(nvidia_bound, !module_unloaded,
              "pci.drivers_bound lists nvidia but kmod.nvidia.loaded=false (a GPU is bound only while the module is loaded)");
    }
  }

  // libcuda: nothing past dlopen happens when it did not load.
  const bool libcuda_not_loaded = is_false(facts, "cuda.libcuda.loaded"_fact);
  for (gd::FactName name : {"cuda.init.result"_fact, "cuda.device_count"_fact, "cuda.driver_version"_fact, "cuda.libcuda.path"_fact}) {
    require(libcuda_not_loaded, !is_present(facts, name),
            "cuda.libcuda.loaded=false but " + std::string(name) + " is present (nothing runs without libcuda)");
  }
  const std::optional<std::int64_t> init = int_of(facts, "cuda.init.result"_fact);
  require(init.has_value(), !libcuda_not_loaded, "cuda.init.result is present but cuda.libcuda.loaded=false");
  require(init && *init != 0, !is_present(facts, "cuda.device_count"_fact),
          "cuInit failed but cuda.device_count is present (the helper stops at a failed cuInit)");
  const std::optional<std::int64_t> cuda_devices = int_of(facts, "cuda.device_count"_fact);
  require(cuda_devices.has_value(), init == 0, "cuda.device_count is present but cuInit did not return 0");
  // A working CUDA device needs the kernel module (libcuda talks to it through /dev/nvidiactl).
  require(cuda_devices && *cuda_devices > 0 && !wsl, !module_unloaded,
          "CUDA found devices but kmod.nvidia.loaded=false (libcuda needs the kernel module)");

  // The proof of every GPU needs a cuInit that succeeded and, outside WSL2, the kernel module.
  const bool proven_all = is_true(facts, "cuda.proof.every_pci_gpu"_fact);
  require(proven_all, init == 0, "cuda.proof.every_pci_gpu=true but cuInit did not return 0");
  require(proven_all && !wsl, !module_unloaded, "cuda.proof.every_pci_gpu=true but kmod.nvidia.loaded=false");

  // NVML: same chain.
  const bool nvml_not_loaded = is_false(facts, "nvml.loaded"_fact);
  for (gd::FactName name : {"nvml.init.result"_fact, "nvml.driver_version"_fact, "nvml.device_count"_fact}) {
    require(nvml_not_loaded, !is_present(facts, name),
            "nvml.loaded=false but " + std::string(name) + " is present (nothing runs without libnvidia-ml)");
  }
  const std::optional<std::int64_t> nvml_init = int_of(facts, "nvml.init.result"_fact);
  for (gd::FactName name : {"nvml.driver_version"_fact, "nvml.device_count"_fact}) {
    require(nvml_init && *nvml_init != 0, !is_present(facts, name),
            "nvmlInit failed but " + std::string(name) + " is present");
  }
  const std::optional<std::int64_t> nvml_devices = int_of(facts, "nvml.device_count"_fact);
  require(nvml_devices && *nvml_devices > 0 && !wsl, !module_unloaded,
          "NVML found devices but kmod.nvidia.loaded=false (NVML needs the kernel module)");

  // Device nodes: a GPU node listed as present needs a GPU the driver lists.
  require(nonempty_list(facts, "dev.gpu_nodes"_fact) && module_unloaded, false,
          "dev.gpu_nodes lists nodes the driver expects, but kmod.nvidia.loaded=false");

  // Containers: the in-container flag and the runtime name go together.
  // (WSL2 is a VM, not a container: is_container_runtime in probes/container/container_runtime.)
  const std::optional<std::string> runtime = is_present(facts, "container.runtime"_fact)
                                                 ? facts.get_string("container.runtime"_fact) : std::nullopt;
  require(is_false(facts, "container.in_container"_fact), !runtime || *runtime == "none" || *runtime == "wsl2",
          "container.in_container=false but container.runtime names a container runtime");
  require(is_true(facts, "container.in_container"_fact), !runtime || (*runtime != "none" && *runtime != "wsl2"),
          "container.in_container=true but container.runtime is " + runtime.value_or(""));

  // A library's GPU code: the covering and the partial architectures split the union, none in both
  // (probes/python/gpu_code_coverage.hpp).
  auto list = [&facts](const std::string& name) {
    const Fact* fact = facts.find(FactName::unchecked(name));
    const auto* values = fact && fact->state == FactState::present ? std::get_if<std::vector<std::string>>(&fact->value)
                                                                   : nullptr;
    return values ? std::optional<std::vector<std::string>>(*values) : std::nullopt;
  };
  std::vector<std::string> libraries = {"torch."};
  for (int index = 0; index < 64 && facts.find("ext.*.path"_pattern.at(index)); ++index) {
    libraries.push_back("ext." + std::to_string(index) + ".");
  }
  for (const std::string& prefix : libraries) {
    for (const char* kind : {"sass", "ptx"}) {
      auto all = list(prefix + kind);
      auto covering = list(prefix + kind + "_covering");
      auto partial = list(prefix + kind + "_partial");
      if (!all || !covering || !partial) continue;
      std::vector<std::string> split = *covering;
      split.insert(split.end(), partial->begin(), partial->end());
      std::sort(split.begin(), split.end());
      std::vector<std::string> sorted = *all;
      std::sort(sorted.begin(), sorted.end());
      require(true, split == sorted,
              prefix + kind + "_covering and " + prefix + kind + "_partial do not split " + prefix + kind +
                  " (each architecture is in exactly one of them)");
    }
  }
  return out;
}

}  // namespace gd::test
