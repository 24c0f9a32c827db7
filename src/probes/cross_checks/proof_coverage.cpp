#include "probes/cross_checks/proof_coverage.hpp"

#include <fmt/format.h>

namespace gd {

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
  // With CUDA_VISIBLE_DEVICES the proof saw the GPUs it names, not the host's.
  if (facts.is_present("env.cuda_visible_devices")) {
    facts.set(k_fact, false, source + ", env.cuda_visible_devices");
    return;
  }
  auto proven = facts.get_int("cuda.kernel.proven_count");
  auto on_bus = facts.get_int("pci.nvidia_gpu_count");
  if (!proven || !on_bus) {
    facts.set_unknown(k_fact, proven ? "the PCI bus was not read" : "the proof kernel gave no count (an older helper?)", source);
    return;
  }
  facts.set(k_fact, *on_bus > 0 && *proven >= *on_bus, fmt::format("{} ({} proven, {} on the bus)", source, *proven, *on_bus));
}

}  // namespace gd
