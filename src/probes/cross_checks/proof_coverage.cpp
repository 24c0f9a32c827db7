#include "probes/cross_checks/proof_coverage.hpp"

#include <fmt/format.h>

namespace gd {

namespace {

/// Why some GPUs of the bus were not tried by this run ("" when every GPU was offered to CUDA).
std::string not_tried(const FactSet& facts, std::int64_t on_bus) {
  if (auto visible = facts.get_string("env.cuda_visible_devices")) {
    return fmt::format("CUDA_VISIBLE_DEVICES={} limits CUDA to the GPUs it names", *visible);
  }
  for (const auto& [name, fact] : facts.all()) {
    if (name.starts_with("nvml.device.") && name.ends_with(".mig.enabled") && fact.state == FactState::present &&
        std::get_if<bool>(&fact.value) && std::get<bool>(fact.value)) {
      return "MIG is on (one CUDA process uses one MIG device)";
    }
  }
  if (facts.get_int("cuda.context.busy_count").value_or(0) > 0) return "other processes hold some of the GPUs";
  auto given = facts.get_int("dev.gpu_count");
  if (facts.get_bool("container.in_container") == true && given && *given < on_bus) {
    return fmt::format("this container was given {} of them", *given);
  }
  return "";
}

}  // namespace

void probe_proof_coverage(Host&, const ProbeOptions&, FactSet& facts) {
  constexpr std::string_view k_fact = "cuda.proof.every_pci_gpu";
  const std::string source = "cuda.kernel.proven_count, pci.nvidia_gpu_count";
  // Without the kernel module no GPU can be proven, whether or not CUDA was run (WSL2 has no
  // module: CUDA reaches the Windows driver through /dev/dxg).
  const Fact* module = facts.find("kmod.nvidia.loaded");
  if (module && module->state == FactState::present && facts.get_bool("kmod.nvidia.loaded") == false &&
      facts.get_bool("dev.dxg.present") != true) {
    facts.set(k_fact, false, "kmod.nvidia.loaded (no NVIDIA kernel module)");
    return;
  }
  auto init = facts.get_int("cuda.init.result");
  if (!init) {
    const Fact* fact = facts.find("cuda.init.result");
    facts.set_unknown(k_fact, fact && !fact->reason.empty() ? fact->reason : "cuInit gave no result", source);
    return;
  }
  if (*init != 0) {
    facts.set(k_fact, false, source);
    return;
  }
  auto proven = facts.get_int("cuda.kernel.proven_count");
  auto on_bus = facts.get_int("pci.nvidia_gpu_count");
  if (!proven || !on_bus) {
    facts.set_unknown(k_fact, proven ? "the PCI bus was not read" : "the proof kernel gave no count (an older helper?)", source);
    return;
  }
  if (*on_bus > 0 && *proven >= *on_bus) {
    facts.set(k_fact, true, fmt::format("{} ({} proven, {} on the bus)", source, *proven, *on_bus));
    return;
  }
  // Fewer proven than on the bus proves nothing against a GPU that this run could not try: a
  // shared node hands each job some GPUs (CUDA_VISIBLE_DEVICES, a container's device cgroup),
  // one CUDA process sees one MIG device, and another job may hold a GPU's memory.
  if (std::string why = not_tried(facts, *on_bus); !why.empty()) {
    facts.set_unknown(k_fact, fmt::format("{} proven of {} on the bus, and {}", *proven, *on_bus, why), source);
    return;
  }
  facts.set(k_fact, false, fmt::format("{} ({} proven, {} on the bus)", source, *proven, *on_bus));
}

}  // namespace gd
