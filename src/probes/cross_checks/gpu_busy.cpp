#include "probes/cross_checks/gpu_busy.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "util/pci_bus_id.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <map>
#include <string_view>
#include <vector>

namespace gd {
namespace {

const std::string k_source = "cross-check: cuda.device.N context/allocation, nvml.device.N processes";

/// The N of every present fact of `pattern` ("nvml.device.*.pci_bus_id"), in numeric order.
std::vector<int> indices(const FactSet& facts, FactPattern pattern) {
  const std::string_view prefix = pattern.prefix();
  const std::string_view field = pattern.suffix().substr(1);  // after the dot that follows the number
  std::map<int, bool> found;
  for (auto it = facts.all().lower_bound(prefix); it != facts.all().end() && it->first.starts_with(prefix); ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    std::size_t dot = rest.find('.');
    if (dot == std::string_view::npos || rest.substr(dot + 1) != field || it->second.state != FactState::present) continue;
    int n = -1;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + dot, n);
    if (ec == std::errc{} && end == rest.data() + dot && n >= 0) found[n] = true;
  }
  std::vector<int> out;
  for (const auto& [n, _] : found) out.push_back(n);
  return out;
}


BuiltFactName cuda_key(int n, FactField<"cuda.device.*."> field) { return field.at(n); }
BuiltFactName nvml_key(int n, FactField<"nvml.device.*."> field) { return field.at(n); }

/// The NVML device with the CUDA device's bus id, if NVML listed it.
std::optional<int> nvml_twin(const FactSet& facts, int cuda_index) {
  auto bus = facts.get_string(cuda_key(cuda_index, "pci_bus_id"));
  if (!bus) return std::nullopt;
  for (int n : indices(facts, "nvml.device.*.pci_bus_id"_pattern)) {
    if (normalize_bus_id(facts.get_string(nvml_key(n, "pci_bus_id")).value_or("")) == normalize_bus_id(*bus)) return n;
  }
  return std::nullopt;
}

/// "context 2 CUDA_ERROR_OUT_OF_MEMORY": the device's entry of cuda.context.failures without its "N: ".
std::string failure_text(const FactSet& facts, int n) {
  const Fact* failures = facts.find("cuda.context.failures"_fact);
  const auto* list = failures ? std::get_if<std::vector<std::string>>(&failures->value) : nullptr;
  const std::string prefix = fmt::format("{}: ", n);
  if (list) {
    for (const std::string& entry : *list) {
      if (entry.starts_with(prefix)) return entry.substr(prefix.size());
    }
  }
  return "context or allocation failed";
}

/// Memory left below which a new context cannot be made: a primary context takes a few hundred
/// MiB of an H200 (the real one answered 2 with 18 MiB and with 4 MiB free); well above that,
/// out of memory is no other job's doing.
constexpr std::int64_t k_full_below_mib = 2048;

/// Whether the failure of CUDA device `n` (code 2 or 46) can be judged: NVML listed the GPU and
/// said which processes it has.
bool decidable(const FactSet& facts, std::int64_t code, std::optional<int> nvml) {
  if (code != 2 && code != 46) return true;  // no sharing answer: a fault whatever NVML says
  return nvml && facts.get_int(nvml_key(*nvml, "processes")).has_value();
}

/// Why another process explains the failure of CUDA device `n` (empty: nothing explains it).
std::string explanation(const FactSet& facts, int n, std::int64_t code, int nvml) {
  auto others = facts.get_int(nvml_key(nvml, "processes"));
  if (!others || *others <= 0) return "";
  std::string mode = facts.get_string(nvml_key(nvml, "compute_mode")).value_or("");
  const bool exclusive = mode == "Exclusive_Process" || mode == "Exclusive_Thread";
  // 2: the memory is taken; 46: in an exclusive mode another process has the GPU. 46 in the
  // Default mode is no sharing answer (a GSP timeout leaves it too): a fault.
  if (code != 2 && !(code == 46 && exclusive)) return "";
  // Out of memory is the others' doing only when they leave too little: a listed process that
  // holds little (an MPS server, gpudoctor's own helper under its host pid in a container) with
  // most of the memory free does not explain it. Captures before protocol 1.2 have no memory
  // reading: there the processes alone decide.
  auto used = facts.get_int(nvml_key(nvml, "memory.used_mib"));
  auto total = facts.get_int(nvml_key(nvml, "memory.total_mib"));
  if (code == 2 && used && total && *total - *used >= k_full_below_mib) return "";
  std::string text = fmt::format("GPU {}", n);
  if (auto bus = facts.get_string(cuda_key(n, "pci_bus_id"))) text += fmt::format(" ({})", *bus);
  text += ": " + failure_text(facts, n);
  if (code == 46) text += fmt::format("; compute mode {}", mode);
  if (used && total) text += fmt::format("; {} of {} MiB in use", *used, *total);
  const Fact* list = facts.find(nvml_key(nvml, "process_list"));
  const auto* entries = list ? std::get_if<std::vector<std::string>>(&list->value) : nullptr;
  if (entries && !entries->empty()) {
    text += fmt::format("; held by {}", fmt::join(*entries, ", "));
  } else {
    text += fmt::format("; {} other process(es) on it", *others);
  }
  return text;
}

}  // namespace

void probe_gpu_busy(Host&, const ProbeOptions&, FactSet& facts) {
  const Fact* failed = facts.find("cuda.context.failed_count"_fact);
  if (!failed || failed->state != FactState::present) {
    // CUDA was not run, failed before its devices, or did not finish: as undecided as the count.
    for (FactName name : {"cuda.context.busy"_fact, "cuda.context.busy_count"_fact, "cuda.context.fault_count"_fact, "cuda.context.faults"_fact}) {
      if (!failed) {
        facts.set_unknown(name, "the CUDA proof gave no context results", k_source);
      } else if (failed->state == FactState::absent) {
        facts.set_absent(name, failed->source, failed->reason);
      } else {
        facts.set_unknown(name, failed->reason, failed->source);
      }
    }
    facts.set_absent("cuda.context.busy_gpus"_fact, k_source, "no GPU concerned");
    return;
  }
  std::vector<std::string> busy, faults, busy_ids, undecided;
  const Fact* failures = facts.find("cuda.context.failures"_fact);
  const auto* failure_list = failures ? std::get_if<std::vector<std::string>>(&failures->value) : nullptr;
  for (int n : indices(facts, "cuda.device.*.context.result"_pattern)) {
    std::int64_t code = facts.get_int(cuda_key(n, "context.result")).value_or(0);
    if (code == 0) code = facts.get_int(cuda_key(n, "alloc.result")).value_or(0);
    if (code == 0) {
      facts.set(cuda_key(n, "busy"), false, k_source);
      continue;
    }
    std::optional<int> nvml = nvml_twin(facts, n);
    if (!decidable(facts, code, nvml)) {
      // Out of memory or refused, and NVML could not say who holds the GPU: neither busy nor a
      // fault of the node (a false drain is worse than an open question).
      const std::string why = fmt::format("GPU {}: NVML could not tell which processes hold it", n);
      facts.set_unknown(cuda_key(n, "busy"), why, k_source);
      undecided.push_back(why);
      continue;
    }
    std::string why = nvml ? explanation(facts, n, code, *nvml) : "";
    facts.set(cuda_key(n, "busy"), !why.empty(), k_source);
    if (!why.empty()) {
      busy.push_back(why);
      busy_ids.push_back(facts.get_string(cuda_key(n, "uuid")).value_or(facts.get_string(cuda_key(n, "pci_bus_id")).value_or(std::to_string(n))));
      continue;
    }
    const std::string prefix = fmt::format("{}: ", n);
    if (failure_list) {
      for (const std::string& entry : *failure_list) {
        if (entry.starts_with(prefix)) faults.push_back(entry);
      }
    }
  }
  // A failure recorded without a per-device result (a reply cut short) stays a fault.
  std::int64_t fault_count = std::max<std::int64_t>(
      static_cast<std::int64_t>(faults.size()),
      facts.get_int("cuda.context.failed_count"_fact).value_or(0) - static_cast<std::int64_t>(busy.size() + undecided.size()));
  facts.set("cuda.context.busy"_fact, busy, k_source);
  facts.set("cuda.context.busy_count"_fact, static_cast<std::int64_t>(busy.size()), k_source);
  if (busy_ids.empty()) {
    facts.set_absent("cuda.context.busy_gpus"_fact, k_source, "no GPU concerned");
  } else {
    facts.set("cuda.context.busy_gpus"_fact, fmt::format("{}", fmt::join(busy_ids, ",")), k_source);
  }
  if (fault_count == 0 && !undecided.empty()) {
    // No definite fault, but failures nobody could explain: undecided, never a healthy count.
    facts.set_unknown("cuda.context.fault_count"_fact, undecided.front(), k_source);
    facts.set_unknown("cuda.context.faults"_fact, undecided.front(), k_source);
    return;
  }
  facts.set("cuda.context.fault_count"_fact, fault_count, k_source);
  facts.set("cuda.context.faults"_fact, faults, k_source);
}

}  // namespace gd
