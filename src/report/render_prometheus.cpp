#include "report/render_prometheus.hpp"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <optional>

#include "core/fact_key.hpp"
#include "report/gpu_rows.hpp"
#include "report/prometheus_text.hpp"

namespace gd {
namespace {

// The contract. Per-GPU families share the labels index (position in PCI bus order, as
// nvidia-smi numbers GPUs; not CUDA's ordinal), bus_id and uuid.
constexpr std::array<PromFamily, 17> k_families = {{
    {"gpudoctor_info", "gauge", "version,driver",
     "Always 1: the gpudoctor version and the loaded NVIDIA kernel module's version (driver, empty when none)."},
    {"gpudoctor_last_run_timestamp_seconds", "gauge", "", "Unix time at which this gpudoctor run ended."},
    {"gpudoctor_run_duration_seconds", "gauge", "", "How long this gpudoctor run took, in seconds."},
    {"gpudoctor_findings", "gauge", "severity", "Number of findings of each severity (error, warning, info)."},
    {"gpudoctor_finding", "gauge", "id,severity,area,scope,action,confirmed",
     "Always 1: one sample per finding, most likely cause first; gpudoctor explain ID tells what it means. "
     "confirmed=\"false\": the finding rests on the host's files and CUDA, which would confirm it, was not run."},
    {"gpudoctor_inconclusive_rules", "gauge", "", "Rules that could not decide because facts they need are unknown."},
    {"gpudoctor_gpus", "gauge", "source",
     "NVIDIA GPUs seen by each layer: pci (sysfs), cuda (cuDeviceGetCount, 0 when cuInit failed), nvml; NaN unknown."},
    {"gpudoctor_cuda_init_result", "gauge", "",
     "CUresult of cuInit (0 success); NaN when cuInit did not run (no libcuda, --no-cuda, --root)."},
    {"gpudoctor_gpu_proven", "gauge", "index,bus_id,uuid",
     "1: a context, an allocation and a kernel worked on the GPU and its result was right; 0: CUDA failed there; "
     "NaN: not proven by this run: not tried, or busy with other processes' work (gpudoctor_gpu_busy 1)."},
    {"gpudoctor_gpu_busy", "gauge", "index,bus_id,uuid",
     "1: gpudoctor's context or allocation failed because other processes hold the GPU (its memory, or the GPU in an "
     "exclusive compute mode): not proven, not failed; 0: CUDA tried the GPU and it was not busy; NaN: not tried."},
    {"gpudoctor_gpu_row_remap_pending", "gauge", "index,bus_id,uuid",
     "1 when a row remapping waits for a GPU reset (NVML); NaN unknown or not supported."},
    {"gpudoctor_gpu_row_remap_failure", "gauge", "index,bus_id,uuid",
     "1 when a row remapping has failed on the GPU (NVML); NaN unknown or not supported."},
    {"gpudoctor_gpu_ecc_uncorrectable_volatile_errors", "gauge", "index,bus_id,uuid",
     "Uncorrectable ECC errors since the driver loaded (NVML); NaN unknown or ECC off."},
    {"gpudoctor_gpu_recovery_action", "gauge", "index,bus_id,uuid",
     "The driver's recovery action (0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset); NaN unknown."},
    {"gpudoctor_gpu_nvlink_links_up", "gauge", "index,bus_id,uuid",
     "Active NVLink links of the GPU (NVML); 0 when it has no NVLink (NOT_SUPPORTED: PCIe only); NaN unknown."},
    {"gpudoctor_p2p_pair_ok", "gauge", "a,b",
     "Peer-to-peer from GPU a to GPU b (CUDA ordinals): 1 when the copy-engine copy was read back right; 0 when it failed "
     "(data wrong or lost, enabling peer access or the copy returned an error). No sample for pairs without peer access "
     "or not tested."},
    {"gpudoctor_p2p_pair_bandwidth_bytes_per_second", "gauge", "a,b",
     "Copy-engine bandwidth from GPU a to GPU b (CUDA ordinals) in bytes per second: copies of 8 MiB timed with CUDA "
     "events, one pair at a time. Samples only with --p2p-bandwidth, for the pairs it timed."},
}};

const PromFamily& family(std::string_view name) {
  for (const PromFamily& f : k_families) {
    if (f.name == name) return f;
  }
  throw std::logic_error("no Prometheus family " + std::string(name));
}

void start(PromWriter& out, std::string_view name) {
  const PromFamily& f = family(name);
  out.family(f.name, f.type, f.help);
}

/// The fact as a sample value: its number (a bool is 1 or 0); 0 when `absent_is_zero` and the
/// probe ran and found nothing; NaN when unknown, missing or not a number.
std::string value_of(const FactSet& facts, FactName name, bool absent_is_zero) {
  const Fact* fact = facts.find(name);
  if (!fact) return std::string(k_prom_nan);
  if (fact->state == FactState::absent) return absent_is_zero ? "0" : std::string(k_prom_nan);
  if (fact->state != FactState::present) return std::string(k_prom_nan);
  if (const auto* b = std::get_if<bool>(&fact->value)) return *b ? "1" : "0";
  if (const auto* i = std::get_if<std::int64_t>(&fact->value)) return prom_int(*i);
  return std::string(k_prom_nan);
}

std::string string_of(const FactSet& facts, FactName name) {
  return facts.get_string(name).value_or("");
}

/// Whether CUDA was tried and failed for the whole host: then a GPU without a CUDA device
/// did not work (0); otherwise CUDA did not list it here and it was not tried (NaN).
bool cuda_failed_everywhere(const FactSet& facts) {
  if (facts.get_bool("cuda.libcuda.loaded"_fact) == false) return true;
  if (auto init = facts.get_int("cuda.init.result"_fact); init && *init != 0) return true;
  std::string status = string_of(facts, "cuda.helper.status"_fact);
  return status == "timeout" || status == "crashed";
}

/// gpudoctor_gpu_proven of one GPU (the HELP text says what each value means).
std::string proven(const FactSet& facts, const GpuRow& row) {
  if (!row.cuda) return cuda_failed_everywhere(facts) ? "0" : std::string(k_prom_nan);
  std::string key = "cuda.device." + std::to_string(*row.cuda) + ".";
  if (auto check = facts.get_string(FactName::unchecked(key + "check"))) return *check == "ok" ? "1" : "0";
  // Another job's GPU is not a failed one: not proven (gpudoctor_gpu_busy says why); nor is one
  // whose refusal NVML could not explain either way.
  if (const Fact* busy = facts.find(FactName::unchecked(key + "busy")); busy && (busy->state == FactState::unknown || facts.get_bool(FactName::unchecked(key + "busy")) == true)) {
    return std::string(k_prom_nan);
  }
  for (const char* result : {"context.result", "alloc.result", "module.result"}) {
    if (auto code = facts.get_int(FactName::unchecked(key + result)); code && *code != 0) return "0";
  }
  for (const char* failed : {"kernel.result", "stuck", "crashed"}) {
    if (facts.is_present(FactName::unchecked(key + failed))) return "0";
  }
  return std::string(k_prom_nan);  // not reached (an older helper without the kernel proof, a cut reply)
}

std::string driver_version(const FactSet& facts) {
  if (auto v = facts.get_string("kmod.nvidia.version"_fact)) return *v;
  return string_of(facts, "nvml.driver_version"_fact);
}

/// One sample per ordered pair of GPUs with a present p2p.pair.A.B<suffix> fact, labelled a and b
/// (CUDA ordinals), valued by `value` (an empty text: no sample for that pair).
template <typename Value>
void pair_samples(PromWriter& out, const FactSet& facts, std::string_view suffix, Value value) {
  constexpr std::string_view k_pair_prefix = "p2p.pair.";
  for (auto it = facts.all().lower_bound(k_pair_prefix); it != facts.all().end() && it->first.starts_with(k_pair_prefix); ++it) {
    std::string_view rest = std::string_view(it->first).substr(k_pair_prefix.size());
    if (!rest.ends_with(suffix) || it->second.state != FactState::present) continue;
    rest.remove_suffix(suffix.size());
    std::size_t dot = rest.find('.');
    if (dot == std::string_view::npos) continue;
    std::string text = value(it->second);
    if (text.empty()) continue;
    out.sample({{"a", std::string(rest.substr(0, dot))}, {"b", std::string(rest.substr(dot + 1))}}, text);
  }
}

}  // namespace

std::span<const PromFamily> prometheus_families() { return k_families; }

std::string render_prometheus(const Report& report, double finished_unix_s) {
  const FactSet& facts = report.facts;
  PromWriter out;
  start(out, "gpudoctor_info");
  out.sample({{"version", report.run.gpudoctor_version}, {"driver", driver_version(facts)}}, "1");
  start(out, "gpudoctor_last_run_timestamp_seconds");
  out.sample({}, prom_seconds(finished_unix_s));
  start(out, "gpudoctor_run_duration_seconds");
  out.sample({}, prom_seconds(static_cast<double>(report.run.duration_ms) / 1000.0));

  start(out, "gpudoctor_findings");
  for (Severity severity : {Severity::error, Severity::warning, Severity::info}) {
    out.sample({{"severity", std::string(to_string(severity))}}, prom_int(report.count(severity)));
  }
  // Labels only: the message holds host data of any length and must never become a label.
  start(out, "gpudoctor_finding");
  for (const Finding& f : report.findings) {
    out.sample({{"id", f.id},
                {"severity", std::string(to_string(f.severity))},
                {"area", f.area},
                {"scope", std::string(to_string(f.scope))},
                {"action", std::string(to_string(f.action))},
                {"confirmed", f.confirmed ? "true" : "false"}},
               "1");
  }
  start(out, "gpudoctor_inconclusive_rules");
  out.sample({}, prom_int(static_cast<std::int64_t>(report.inconclusive.size())));

  start(out, "gpudoctor_gpus");
  out.sample({{"source", "pci"}}, value_of(facts, "pci.nvidia_gpu_count"_fact, true));
  out.sample({{"source", "cuda"}}, value_of(facts, "cuda.device_count"_fact, true));
  out.sample({{"source", "nvml"}}, value_of(facts, "nvml.device_count"_fact, true));
  start(out, "gpudoctor_cuda_init_result");
  out.sample({}, value_of(facts, "cuda.init.result"_fact, false));

  const std::vector<GpuRow> rows = gpu_rows(facts);
  auto labels = [&](std::size_t i) {
    return PromLabels{{"index", std::to_string(i)}, {"bus_id", rows[i].bus_id}, {"uuid", rows[i].uuid}};
  };
  start(out, "gpudoctor_gpu_proven");
  for (std::size_t i = 0; i < rows.size(); ++i) out.sample(labels(i), proven(facts, rows[i]));
  start(out, "gpudoctor_gpu_busy");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string value(k_prom_nan);
    if (rows[i].cuda) value = value_of(facts, "cuda.device.*.busy"_pattern.at(*rows[i].cuda), false);
    out.sample(labels(i), value);
  }
  // NVML's health readings of each GPU; unknown where NVML does not support the query.
  const std::pair<std::string_view, std::string_view> health[] = {
      {"gpudoctor_gpu_row_remap_pending", "remap.pending"},
      {"gpudoctor_gpu_row_remap_failure", "remap.failure"},
      {"gpudoctor_gpu_ecc_uncorrectable_volatile_errors", "ecc.uncorrected_volatile"},
      {"gpudoctor_gpu_recovery_action", "recovery_action"},
  };
  for (const auto& [name, field] : health) {
    start(out, name);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::string value(k_prom_nan);
      if (rows[i].nvml) {
        value = value_of(facts, FactName::unchecked("nvml.device." + std::to_string(*rows[i].nvml) + "." + std::string(field)), false);
      }
      out.sample(labels(i), value);
    }
  }
  start(out, "gpudoctor_gpu_nvlink_links_up");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string value(k_prom_nan);
    if (rows[i].nvml) value = value_of(facts, "nvlink.gpu.*.links_up"_pattern.at(*rows[i].nvml), true);
    out.sample(labels(i), value);
  }
  // One sample per ordered pair the helper copied between (p2p.pair.A.B.status).
  start(out, "gpudoctor_p2p_pair_ok");
  pair_samples(out, facts, ".status", [](const Fact& fact) -> std::string {
    const auto* status = std::get_if<std::string>(&fact.value);
    if (!status) return {};
    if (*status == "proven") return "1";
    if (*status == "wrong" || *status == "enable-failed" || *status == "copy-failed") return "0";
    return {};
  });
  // --p2p-bandwidth: one sample per pair with a figure (p2p.pair.A.B.bandwidth_mb_per_s).
  start(out, "gpudoctor_p2p_pair_bandwidth_bytes_per_second");
  pair_samples(out, facts, ".bandwidth_mb_per_s", [](const Fact& fact) -> std::string {
    const auto* mb_per_s = std::get_if<std::int64_t>(&fact.value);
    // A facts file (--facts) may hold anything: no sample rather than an overflowed one.
    if (!mb_per_s || *mb_per_s < 0 || *mb_per_s > INT64_MAX / 1000000) return {};
    return prom_int(*mb_per_s * 1000000);
  });
  return out.text();
}

}  // namespace gd
