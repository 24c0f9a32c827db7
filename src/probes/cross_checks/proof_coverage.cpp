#include "probes/cross_checks/proof_coverage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <vector>

#include "core/fact_key.hpp"
#include "util/pci_bus_id.hpp"

namespace gd {

namespace {

/// The N of every present string fact of `pattern` ("pci.gpu.*.bus_id"), by its normalized bus id.
std::map<std::string, int> by_bus(const FactSet& facts, FactPattern pattern) {
  const std::string_view prefix = pattern.prefix();
  const std::string_view field = pattern.suffix().substr(1);  // after the dot that follows the number
  std::map<std::string, int> out;
  for (auto it = facts.all().lower_bound(prefix); it != facts.all().end() && it->first.starts_with(prefix); ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    std::size_t dot = rest.find('.');
    const auto* text = std::get_if<std::string>(&it->second.value);
    if (dot == std::string_view::npos || rest.substr(dot + 1) != field || it->second.state != FactState::present || !text) continue;
    int n = -1;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + dot, n);
    if (ec == std::errc{} && end == rest.data() + dot && n >= 0) out.emplace(normalize_bus_id(*text), n);
  }
  return out;
}

/// Why the GPUs of the bus that were not proven were not tried by this run, joined by bus id; ""
/// when one of them has no such excuse (then the proof speaks against it). A GPU is excused when
/// another process holds it (its context failed busy), when it is in MIG mode (one CUDA process
/// uses one MIG device), or when NVML lists it but CUDA_VISIBLE_DEVICES kept it from CUDA. A GPU
/// neither CUDA nor NVML lists has no excuse: the driver did not take it (too new, dropped, another
/// driver), or this container was not given it, and the hardware rules judge the bus either way.
std::string not_tried(const FactSet& facts) {
  const std::map<std::string, int> pci = by_bus(facts, "pci.gpu.*.bus_id"_pattern);
  const std::map<std::string, int> cuda = by_bus(facts, "cuda.device.*.pci_bus_id"_pattern);
  const std::map<std::string, int> nvml = by_bus(facts, "nvml.device.*.pci_bus_id"_pattern);
  const auto visible = facts.get_string("env.cuda_visible_devices"_fact);
  std::vector<std::string> reasons;
  auto add = [&](std::string reason) {
    if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(std::move(reason));
  };
  for (const auto& [bus, _] : pci) {
    auto c = cuda.find(bus);
    auto m = nvml.find(bus);
    const bool mig = m != nvml.end() && facts.get_bool("nvml.device.*.mig.enabled"_pattern.at(m->second)) == true;
    if (c != cuda.end()) {
      if (facts.get_string("cuda.device.*.check"_pattern.at(c->second)) == "ok") continue;  // proven
      if (facts.get_bool("cuda.device.*.busy"_pattern.at(c->second)) == true) {
        add("other processes hold some of them");
      } else if (mig) {
        add("MIG is on (one CUDA process uses one MIG device)");
      } else {
        return "";  // CUDA tried it and it failed
      }
    } else if (m != nvml.end() && mig) {
      add("MIG is on (one CUDA process uses one MIG device)");
    } else if (m != nvml.end() && visible) {
      add(fmt::format("CUDA_VISIBLE_DEVICES={} kept some from CUDA", *visible));
    } else {
      return "";
    }
  }
  return fmt::format("{}", fmt::join(reasons, "; "));
}

}  // namespace

void probe_proof_coverage(Host&, const ProbeOptions&, FactSet& facts) {
  constexpr FactName k_fact = "cuda.proof.every_pci_gpu"_fact;
  const std::string source = "cuda.kernel.proven_count, pci.nvidia_gpu_count";
  // Without the kernel module no GPU can be proven, whether or not CUDA was run (WSL2 has no
  // module: CUDA reaches the Windows driver through /dev/dxg).
  const Fact* module = facts.find("kmod.nvidia.loaded"_fact);
  if (module && module->state == FactState::present && facts.get_bool("kmod.nvidia.loaded"_fact) == false &&
      facts.get_bool("dev.dxg.present"_fact) != true) {
    facts.set(k_fact, false, "kmod.nvidia.loaded (no NVIDIA kernel module)");
    return;
  }
  auto init = facts.get_int("cuda.init.result"_fact);
  if (!init) {
    const Fact* fact = facts.find("cuda.init.result"_fact);
    facts.set_unknown(k_fact, fact && !fact->reason.empty() ? fact->reason : "cuInit gave no result", source);
    return;
  }
  if (*init != 0) {
    facts.set(k_fact, false, source);
    return;
  }
  auto proven = facts.get_int("cuda.kernel.proven_count"_fact);
  auto on_bus = facts.get_int("pci.nvidia_gpu_count"_fact);
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
  if (std::string why = not_tried(facts); !why.empty()) {
    facts.set_unknown(k_fact, fmt::format("{} proven of {} on the bus, and {}", *proven, *on_bus, why), source);
    return;
  }
  facts.set(k_fact, false, fmt::format("{} ({} proven, {} on the bus)", source, *proven, *on_bus));
}

}  // namespace gd
