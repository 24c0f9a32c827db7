#include "probes/cuda/nvml_health.hpp"
#include "probes/cuda/nvml_nvlink.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "util/pci_bus_id.hpp"
#include "util/text_split.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace gd {
namespace {

const std::string k_source = "helper:nvml-health";

/// One value of a GPU's health lines: its number, or why there is none.
struct Reading {
  std::optional<std::int64_t> value;
  bool not_supported = false;  ///< NVML_ERROR_NOT_SUPPORTED: the GPU has no such thing
  std::string why;             ///< for an unknown fact
};

std::optional<std::int64_t> parse_number(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

/// `key` (e.g. "ecc_mode.current") of a device; the failure of its query is under `query`.result.
Reading read(const HelperNvmlDevice& dev, std::string_view key, std::string_view query) {
  Reading out;
  if (auto it = dev.health.find(key); it != dev.health.end()) {
    out.value = parse_number(it->second);
    if (!out.value) out.why = "unreadable value '" + it->second + "'";
    return out;
  }
  std::string result_key = std::string(query) + ".result";
  auto failed = dev.health.find(result_key);
  if (failed == dev.health.end()) {
    out.why = "not reported by the helper";
    return out;
  }
  auto code = parse_number(failed->second);
  if (auto error = dev.health.find(std::string(query) + ".error"); error != dev.health.end()) {
    out.why = error->second;  // "missing symbol nvmlDeviceGetRemappedRows": an older driver
  } else if (code == 3) {
    out.not_supported = true;
    out.why = "not supported on this GPU or driver (NVML_ERROR_NOT_SUPPORTED)";
  } else {
    out.why = fmt::format("NVML returned {}", failed->second);
  }
  return out;
}

std::string gpu_name(const HelperNvmlDevice& dev) {
  return dev.pci_bus_id ? fmt::format("GPU {} ({})", dev.index, *dev.pci_bus_id) : fmt::format("GPU {}", dev.index);
}

/// How nvidia-smi -i names the GPU: its UUID, else its bus id.
std::string smi_id(const HelperNvmlDevice& dev) { return dev.uuid.value_or(dev.pci_bus_id.value_or(std::to_string(dev.index))); }


/// One health sum: the GPUs a condition holds for, or unknown when a GPU could not tell.
struct Sum {
  explicit Sum(FactName sum_name) : name(sum_name) {}
  FactName name;  ///< "nvml.health.remap_pending"; its GPUs' UUIDs are name + "_gpus"
  std::vector<std::string> gpus;
  std::vector<std::string> ids;
  std::string unknown_why;
};

/// A health sum's companion fact: "nvml.health.remap_pending_gpus" (every sum has one in the
/// catalogue; built from the checked name, it is checked again when it is set).
BuiltFactName gpus_of(FactName sum) { return BuiltFactName(sum.str() + "_gpus"); }

void add(Sum& sum, const HelperNvmlDevice& dev, const std::string& detail = "") {
  sum.gpus.push_back(detail.empty() ? gpu_name(dev) : gpu_name(dev) + ": " + detail);
  sum.ids.push_back(smi_id(dev));
}

/// A reading that cannot decide the sum: remembered, unless the GPU simply has no such thing.
void note_unknown(Sum& sum, const HelperNvmlDevice& dev, const Reading& reading) {
  if (!reading.value && !reading.not_supported && sum.unknown_why.empty()) {
    sum.unknown_why = gpu_name(dev) + ": " + reading.why;
  }
}

void set_int(FactSet& facts, FactName name, const Reading& reading) {
  if (reading.value) {
    facts.set(name, *reading.value, k_source);
  } else {
    facts.set_unknown(name, reading.why, k_source);
  }
}

void set_bool(FactSet& facts, FactName name, const Reading& reading) {
  if (reading.value) {
    facts.set(name, *reading.value != 0, k_source);
  } else {
    facts.set_unknown(name, reading.why, k_source);
  }
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;  // no entry, not one empty entry
  for (std::string_view field : split_fields(text, ',')) out.emplace_back(field);
  return out;
}

/// "pid 1234 (python): 143000 MiB" for each process NVML lists on the GPU (protocol 1.2 adds the
/// memory and, in the host's PID namespace, the name; the lists are in the order of the pids).
std::vector<std::string> process_list(const HelperNvmlDevice& dev) {
  auto list = [&](std::string_view field) {
    auto it = dev.health.find(field);
    return it == dev.health.end() ? std::vector<std::string>{} : split_commas(it->second);
  };
  std::vector<std::string> pids = list("processes.pids"), used = list("processes.used_mib"), names = list("processes.names");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < pids.size(); ++i) {
    std::string text = "pid " + pids[i];
    if (i < names.size() && names[i] != "?") text += " (" + names[i] + ")";
    if (i < used.size() && used[i] != "?") text += ": " + used[i] + " MiB";
    out.push_back(std::move(text));
  }
  return out;
}

std::string_view compute_mode_name(std::int64_t mode) {
  switch (mode) {
    case 0: return "Default";
    case 1: return "Exclusive_Thread";
    case 2: return "Prohibited";
    case 3: return "Exclusive_Process";
    default: return "unknown";
  }
}

/// nvmlDeviceGpuRecoveryAction_t; later values are printed as numbers.
std::string recovery_action_name(std::int64_t action) {
  switch (action) {
    case 0: return "NONE";
    case 1: return "GPU_RESET";
    case 2: return "NODE_REBOOT";
    case 3: return "DRAIN_P2P";
    case 4: return "DRAIN_AND_RESET";
    case 5: return "RECOVER_IMEX_DOMAIN";
    default: return fmt::format("action {}", action);
  }
}

/// The clock event reasons that cost performance (DCGM's CheckForClocksEvent fails on exactly
/// these; idle, the SW power cap and sync boost are normal).
constexpr std::array<std::pair<std::int64_t, std::string_view>, 4> k_slowdown_reasons = {{
    {0x8, "HW slowdown"}, {0x20, "SW thermal slowdown"}, {0x40, "HW thermal slowdown"}, {0x80, "HW power brake"}}};

std::vector<std::string> reason_names(std::int64_t bits) {
  static constexpr std::array<std::pair<std::int64_t, std::string_view>, 11> k_names = {{
      {0x1, "GPU idle"}, {0x2, "applications clocks setting"}, {0x4, "SW power cap"}, {0x8, "HW slowdown"},
      {0x10, "sync boost"}, {0x20, "SW thermal slowdown"}, {0x40, "HW thermal slowdown"}, {0x80, "HW power brake"},
      {0x100, "display clock setting"}, {0x200, "board limit"}, {0x400, "reliability"}}};
  std::vector<std::string> out;
  std::int64_t known = 0;
  for (const auto& [bit, name] : k_names) {
    known |= bit;
    if (bits & bit) out.emplace_back(name);
  }
  if (bits & ~known) out.push_back(fmt::format("other reasons 0x{:x}", bits & ~known));
  return out;
}

constexpr std::array<std::string_view, 5> k_fabric_states = {"not-supported", "not-started", "in-progress", "completed", "?"};
// The cluster UUID NVML gives a GPU registered with no multi-node NVLink domain (torchcomms #1385,
// flashinfer #2626: single-node NVSwitch systems report the completed state with it).
constexpr std::string_view k_no_cluster_uuid = "00000000-0000-0000-0000-000000000000";

/// The problems a fabric health mask reports (2-bit fields, value 1 = TRUE; nvml.h 580+).
std::vector<std::string> fabric_problems(std::int64_t mask) {
  std::vector<std::string> out;
  auto field = [&](int shift, std::int64_t width) { return (mask >> shift) & width; };
  if (field(0, 0x3) == 1) out.emplace_back("bandwidth degraded");
  if (field(2, 0x3) == 1) out.emplace_back("route recovery in progress");
  if (field(4, 0x3) == 1) out.emplace_back("route unhealthy");
  if (field(6, 0x3) == 1) out.emplace_back("access timeout recovery in progress");
  if (std::int64_t config = field(8, 0xf); config >= 2) out.push_back(fmt::format("incorrect configuration ({})", config));
  return out;
}

}  // namespace

void record_no_nvml_health(FactSet& facts, const std::string& why, const std::string& source) {
  record_no_nvlink(facts, why, source);  // the NVLink lines come with the health lines
  facts.set_unknown("nvml.health.recovery_action_codes"_fact, why, source);
  for (FactName name :
       {"nvml.health.ecc_uncorrected_volatile"_fact, "nvml.health.ecc_uncorrected_aggregate"_fact, "nvml.health.remap_pending"_fact,
        "nvml.health.remap_failed"_fact, "nvml.health.remap_exhausted"_fact, "nvml.health.retired_pending"_fact,
        "nvml.health.recovery_actions"_fact, "nvml.health.inforom_corrupt"_fact, "nvml.health.compute_prohibited"_fact,
        "nvml.health.compute_exclusive_busy"_fact, "nvml.health.mig_pending"_fact, "nvml.health.mig_without_cuda_device"_fact,
        "nvml.health.fabric_not_registered"_fact, "nvml.health.fabric_degraded"_fact, "nvml.health.pcie_degraded"_fact,
        "nvml.health.clocks_slowdown"_fact, "nvml.health.persistence_off"_fact}) {
    facts.set_unknown(name, why, source);
    facts.set_unknown(gpus_of(name), why, source);
  }
}

void record_nvml_health(const HelperReply& reply, FactSet& facts) {
  record_nvlink(reply, facts);
  if (reply.protocol_minor < 1) {
    record_no_nvml_health(facts, "the helper of this capture predates the GPU health checks (protocol 1.0)", k_source);
    return;
  }
  Sum dbe_volatile{"nvml.health.ecc_uncorrected_volatile"_fact}, dbe_aggregate{"nvml.health.ecc_uncorrected_aggregate"_fact},
      remap_pending{"nvml.health.remap_pending"_fact}, remap_failed{"nvml.health.remap_failed"_fact},
      remap_exhausted{"nvml.health.remap_exhausted"_fact}, retired_pending{"nvml.health.retired_pending"_fact},
      recovery{"nvml.health.recovery_actions"_fact}, inforom{"nvml.health.inforom_corrupt"_fact},
      prohibited{"nvml.health.compute_prohibited"_fact}, exclusive_busy{"nvml.health.compute_exclusive_busy"_fact},
      mig_pending{"nvml.health.mig_pending"_fact}, mig_lost{"nvml.health.mig_without_cuda_device"_fact},
      fabric_down{"nvml.health.fabric_not_registered"_fact}, fabric_degraded{"nvml.health.fabric_degraded"_fact},
      pcie{"nvml.health.pcie_degraded"_fact}, slowdown{"nvml.health.clocks_slowdown"_fact},
      persistence_off{"nvml.health.persistence_off"_fact};
  std::vector<std::string> recovery_codes;

  // CUDA found no device at all (CUDA_ERROR_NO_DEVICE): MIG GPUs count, unless
  // CUDA_VISIBLE_DEVICES may be what hid their instances (cuda.visible-devices-hides-gpus).
  const bool cuda_found_none = reply.cuda_init.result == 100 && !facts.is_present("env.cuda_visible_devices"_fact);

  for (const HelperNvmlDevice& dev : reply.nvml_devices) {
    auto key = [&](FactField<"nvml.device.*."> field) { return field.at(dev.index); };
    Reading ecc = read(dev, "ecc_mode.current", "ecc_mode");
    set_bool(facts, key("ecc.enabled"), ecc);
    set_bool(facts, key("ecc.pending_enabled"), read(dev, "ecc_mode.pending", "ecc_mode"));
    Reading dbe_vol = read(dev, "ecc_uncorrected.volatile", "ecc_uncorrected.volatile");
    Reading dbe_agg = read(dev, "ecc_uncorrected.aggregate", "ecc_uncorrected.aggregate");
    set_int(facts, key("ecc.uncorrected_volatile"), dbe_vol);
    set_int(facts, key("ecc.uncorrected_aggregate"), dbe_agg);
    note_unknown(dbe_volatile, dev, dbe_vol);
    note_unknown(dbe_aggregate, dev, dbe_agg);
    if (dbe_vol.value > 0) add(dbe_volatile, dev, fmt::format("{} since the driver loaded", *dbe_vol.value));
    if (dbe_agg.value > 0 && dbe_vol.value == 0) add(dbe_aggregate, dev, fmt::format("{} in its lifetime", *dbe_agg.value));

    Reading pending = read(dev, "remap.pending", "remap");
    Reading failure = read(dev, "remap.failure", "remap");
    Reading uncorrectable = read(dev, "remap.uncorrectable", "remap");
    set_int(facts, key("remap.correctable"), read(dev, "remap.correctable", "remap"));
    set_int(facts, key("remap.uncorrectable"), uncorrectable);
    set_bool(facts, key("remap.pending"), pending);
    set_bool(facts, key("remap.failure"), failure);
    note_unknown(remap_pending, dev, pending);
    note_unknown(remap_failed, dev, failure);
    if (pending.value > 0) add(remap_pending, dev, fmt::format("{} uncorrectable rows remapped", uncorrectable.value.value_or(0)));
    if (failure.value > 0) add(remap_failed, dev);
    Reading no_spare = read(dev, "remap_histogram.none", "remap_histogram");
    set_int(facts, key("remap.banks_without_spare_rows"), no_spare);
    note_unknown(remap_exhausted, dev, no_spare);
    // Only uncorrectable remappings use up a bank's reserved rows (nvidia-smi: correctable ones do
    // not count towards the histogram), so banks without spare rows and no uncorrectable remapping
    // is a reading of a GPU without row remapping (GetRemappedRows answers on a GeForce too), not
    // exhaustion. With the count unknown (MIG instances), the histogram alone decides.
    const bool remaps_used = !uncorrectable.value || *uncorrectable.value > 0;
    if (no_spare.value > 0 && remaps_used) {
      add(remap_exhausted, dev, fmt::format("{} memory bank(s) with no spare row left", *no_spare.value));
    }

    Reading retired = read(dev, "retired_pending", "retired_pending");
    set_bool(facts, key("retired.pending"), retired);
    set_int(facts, key("retired.sbe"), read(dev, "retired.sbe", "retired.sbe"));
    set_int(facts, key("retired.dbe"), read(dev, "retired.dbe", "retired.dbe"));
    note_unknown(retired_pending, dev, retired);
    if (retired.value > 0) add(retired_pending, dev);

    Reading action = read(dev, "recovery_action", "recovery_action");
    set_int(facts, key("recovery_action"), action);
    note_unknown(recovery, dev, action);
    if (action.value > 0) {
      add(recovery, dev, fmt::format("{} ({})", recovery_action_name(*action.value), *action.value));
      std::string code = std::to_string(*action.value);
      if (std::find(recovery_codes.begin(), recovery_codes.end(), code) == recovery_codes.end()) recovery_codes.push_back(code);
    }

    // ValidateInforom answers with its result only: 0 valid, 14 corrupted. It runs only with
    // --check-inforom (a flash read); any other query answering 14 also says it is corrupted.
    bool answered_corrupted = false;
    for (const auto& [name, value] : dev.health) {
      if (name.ends_with(".result") && name != "inforom.result" && value == "14") answered_corrupted = true;
    }
    Reading rom = read(dev, "inforom.result", "inforom");
    if (dev.health.count("inforom.skipped")) {
      rom = Reading{std::nullopt, true, "not validated: reading the InfoROM from flash takes about 70 ms per GPU (--check-inforom does it)"};
    } else if (dev.health.count("inforom.error")) {
      rom = Reading{std::nullopt, false, dev.health.at("inforom.error")};  // a missing symbol
    } else if (rom.value == 3) {
      rom = Reading{std::nullopt, true, "not supported on this GPU (NVML_ERROR_NOT_SUPPORTED)"};
    } else if (rom.value && *rom.value != 0 && *rom.value != 14) {
      rom = Reading{std::nullopt, false, fmt::format("nvmlDeviceValidateInforom returned {}", *rom.value)};
    }
    if (answered_corrupted) rom = Reading{14, false, ""};
    if (rom.value) {
      facts.set(key("inforom_valid"), *rom.value == 0, k_source);
      if (*rom.value == 14) add(inforom, dev, answered_corrupted ? "a query answered NVML_ERROR_CORRUPTED_INFOROM" : "");
    } else {
      facts.set_unknown(key("inforom_valid"), rom.why, k_source);
      note_unknown(inforom, dev, rom);
    }

    // Persistence off matters on a compute GPU; a GPU driving a display is a desktop's.
    Reading persistence = read(dev, "persistence", "persistence");
    Reading display = read(dev, "display_active", "display_active");
    set_bool(facts, key("persistence"), persistence);
    set_bool(facts, key("display_active"), display);
    note_unknown(persistence_off, dev, persistence);
    if (persistence.value == 0 && display.value == 0) add(persistence_off, dev);

    Reading mode = read(dev, "compute_mode", "compute_mode");
    Reading process_count = read(dev, "processes.count", "processes");
    if (mode.value) {
      facts.set(key("compute_mode"), std::string(compute_mode_name(*mode.value)), k_source);
    } else {
      facts.set_unknown(key("compute_mode"), mode.why, k_source);
    }
    set_int(facts, key("processes"), process_count);
    if (auto pids = dev.health.find("processes.pids"); pids != dev.health.end()) {
      facts.set(key("process_pids"), pids->second, k_source);
      facts.set(key("process_list"), process_list(dev), k_source);
    } else if (process_count.value == 0) {
      facts.set(key("process_list"), std::vector<std::string>{}, k_source);
    }
    if (reply.protocol_minor >= 2) {
      set_int(facts, key("memory.total_mib"), read(dev, "memory.total_mib", "memory"));
      set_int(facts, key("memory.used_mib"), read(dev, "memory.used_mib", "memory"));
    } else {
      for (FactField<"nvml.device.*."> field : std::initializer_list<FactField<"nvml.device.*.">>{"memory.total_mib", "memory.used_mib"}) {
        facts.set_unknown(key(field), "the helper of this capture predates the memory readings (protocol 1.2)", k_source);
      }
    }
    note_unknown(prohibited, dev, mode);
    note_unknown(exclusive_busy, dev, mode);
    if (mode.value == 2) add(prohibited, dev);
    if (mode.value == 3 || mode.value == 1) {
      // NVML lists the host's pids (the driver knows no PID namespaces, nvidia-docker#1483), so in a
      // container the helper's own context counts as "another" process, and under MPS the server
      // holds the GPU for its clients. When the helper's own context on this GPU was admitted, no
      // other process holds it exclusively: only a refused context (or none tried) counts.
      const HelperCudaDevice* ours = nullptr;
      for (const HelperCudaDevice& cuda_dev : reply.cuda_devices) {
        if (dev.pci_bus_id && cuda_dev.pci_bus_id && normalize_bus_id(*cuda_dev.pci_bus_id) == normalize_bus_id(*dev.pci_bus_id)) ours = &cuda_dev;
      }
      // A GPU that CUDA did not enumerate (hidden by CUDA_VISIBLE_DEVICES or a device cgroup, as
      // a scheduler hands each job its GPUs) was not tried: another job on it is no refusal.
      const bool refused = ours && ours->context.result == 46;  // CUDA_ERROR_DEVICE_UNAVAILABLE
      note_unknown(exclusive_busy, dev, process_count);
      if (process_count.value > 0 && refused) {
        add(exclusive_busy, dev, fmt::format("{} other process(es): pid {}", *process_count.value,
                                             dev.health.count("processes.pids") ? dev.health.at("processes.pids") : "?"));
      }
    }

    Reading mig = read(dev, "mig_mode.current", "mig_mode");
    Reading mig_next = read(dev, "mig_mode.pending", "mig_mode");
    set_bool(facts, key("mig.enabled"), mig);
    set_bool(facts, key("mig.pending_enabled"), mig_next);
    note_unknown(mig_pending, dev, mig);
    if (mig.value && mig_next.value && *mig.value != *mig_next.value) {
      add(mig_pending, dev, *mig_next.value ? "MIG turns on at the next reset" : "MIG turns off at the next reset");
    }
    note_unknown(mig_lost, dev, mig);
    if (mig.value == 1) {
      // One CUDA process enumerates one MIG device (NVIDIA's MIG user guide, "CUDA device
      // enumeration"), so CUDA's list says nothing about the other MIG GPUs: NVML's count of MIG
      // devices does. Only a GPU without any, or a CUDA that found no device at all, counts.
      Reading mig_count = read(dev, "mig_devices.count", "mig_devices");
      if (reply.protocol_minor < 2) {
        mig_count = Reading{std::nullopt, false, "the helper of this capture predates the MIG device count (protocol 1.2)"};
      }
      set_int(facts, key("mig.devices"), mig_count);
      if (auto uuids = dev.health.find("mig_devices.uuids"); uuids != dev.health.end()) {
        facts.set(key("mig.device_uuids"), split_commas(uuids->second), k_source);
      }
      if (mig_count.value == 0) {
        add(mig_lost, dev, "no MIG device (GPU instance with a compute instance)");
      } else if (cuda_found_none) {
        add(mig_lost, dev, mig_count.value ? fmt::format("{} MIG device(s), none of which CUDA could use", *mig_count.value) : "");
      } else if (!mig_count.value && mig_lost.unknown_why.empty()) {
        mig_lost.unknown_why = gpu_name(dev) + ": " + mig_count.why;
      }
    }

    Reading reasons = read(dev, "clocks_event_reasons", "clocks_event_reasons");
    if (reasons.value) {
      facts.set(key("clocks_event_reasons"), reason_names(*reasons.value), k_source);
      std::vector<std::string> active;
      for (const auto& [bit, name] : k_slowdown_reasons) {
        if (*reasons.value & bit) active.emplace_back(name);
      }
      // HW slowdown alone, without HW thermal slowdown or the power brake that nvidia-smi says
      // engage it, "may be also reported during PState or clock change" (nvml.h): one reading,
      // taken while the helper's own contexts are being created, proves no slowdown.
      if (active.size() == 1 && (*reasons.value & 0x8)) active.clear();
      if (!active.empty()) add(slowdown, dev, fmt::format("{}", fmt::join(active, ", ")));
    } else {
      facts.set_unknown(key("clocks_event_reasons"), reasons.why, k_source);
      note_unknown(slowdown, dev, reasons);
    }

    Reading gen = read(dev, "pcie.gen_current", "pcie.gen_current");
    Reading width = read(dev, "pcie.width_current", "pcie.width_current");
    Reading gen_max = read(dev, "pcie.gen_max", "pcie.gen_max");
    Reading width_max = read(dev, "pcie.width_max", "pcie.width_max");
    Reading pstate = read(dev, "pstate", "pstate");
    Reading pstate_after = read(dev, "pstate.after", "pstate");
    set_int(facts, key("pcie.gen"), gen);
    set_int(facts, key("pcie.width"), width);
    set_int(facts, key("pcie.gen_max"), gen_max);
    set_int(facts, key("pcie.width_max"), width_max);
    set_int(facts, key("pcie.gen_gpu_max"), read(dev, "pcie.gen_gpu_max", "pcie.gen_gpu_max"));
    set_int(facts, key("pstate"), pstate);
    // The current link is comparable with the maximum only in P0, before and after reading it
    // (an idle GPU trains its link down to save power; DCGM's PCIe check does the same).
    bool in_p0 = pstate.value == 0 && pstate_after.value == 0;
    if (gen.value && width.value && gen_max.value && width_max.value) {
      if (in_p0 && (*gen.value < *gen_max.value || *width.value < *width_max.value)) {
        add(pcie, dev, fmt::format("gen {} x{} of gen {} x{}", *gen.value, *width.value, *gen_max.value, *width_max.value));
      }
    } else {
      note_unknown(pcie, dev, !gen.value ? gen : !width.value ? width : !gen_max.value ? gen_max : width_max);
    }

    // Fabric: only a GPU that takes part in a fabric reports a state other than not-supported.
    Reading fabric_state = read(dev, "fabric.state", "fabric");
    if (fabric_state.value) {
      std::int64_t state = std::clamp<std::int64_t>(*fabric_state.value, 0, 4);
      facts.set(key("fabric.state"), std::string(k_fabric_states[static_cast<std::size_t>(state)]), k_source);
      Reading status = read(dev, "fabric.status", "fabric");
      Reading mask = read(dev, "fabric.health_mask", "fabric");
      Reading summary = read(dev, "fabric.health_summary", "fabric");
      std::vector<std::string> problems = mask.value ? fabric_problems(*mask.value) : std::vector<std::string>{};
      if (summary.value == 2) problems.emplace_back("health summary unhealthy");
      if (summary.value == 3) problems.emplace_back("limited capacity");
      facts.set(key("fabric.health"), problems, k_source);
      // Which NVLink domain and partition (helper 1.4; the clique since 1.3), only once registered:
      // the nodes of one multi-node NVLink domain share the cluster UUID (for the fleet to compare).
      if (state == 3) {
        if (auto it = dev.health.find("fabric.cluster_uuid"); it != dev.health.end()) {
          // All zero: registered, but in no multi-node domain (a single-node NVSwitch system such as
          // HGX H100). Every such node would "share" it, so it is no domain to compare.
          if (it->second == k_no_cluster_uuid) {
            facts.set_absent(key("fabric.cluster_uuid"), k_source, "all zero: no multi-node NVLink domain");
          } else {
            facts.set(key("fabric.cluster_uuid"), it->second, k_source);
          }
        } else {
          facts.set_unknown(key("fabric.cluster_uuid"), "not reported by the helper (protocol 1.4)", k_source);
        }
        Reading clique = read(dev, "fabric.clique_id", "fabric");
        if (clique.value) {
          facts.set(key("fabric.clique_id"), *clique.value, k_source);
        } else {
          facts.set_unknown(key("fabric.clique_id"), clique.why, k_source);
        }
      }
      if (state == 1) add(fabric_down, dev, "not registered with the fabric manager (state not started)");
      if (state == 3 && status.value && *status.value != 0) add(fabric_down, dev, fmt::format("registration failed (NVML status {})", *status.value));
      if (state == 2) add(fabric_degraded, dev, "fabric registration in progress");
      if (state == 3 && !problems.empty()) add(fabric_degraded, dev, fmt::format("{}", fmt::join(problems, ", ")));
    } else {
      facts.set_unknown(key("fabric.state"), fabric_state.not_supported ? "no NVLink fabric (NVML_ERROR_NOT_SUPPORTED)" : fabric_state.why, k_source);
      note_unknown(fabric_down, dev, fabric_state);
      note_unknown(fabric_degraded, dev, fabric_state);
    }
  }

  for (Sum* sum : {&dbe_volatile, &dbe_aggregate, &remap_pending, &remap_failed, &remap_exhausted, &retired_pending,
                   &recovery, &inforom, &prohibited, &exclusive_busy, &mig_pending, &mig_lost, &fabric_down,
                   &fabric_degraded, &pcie, &slowdown, &persistence_off}) {
    const BuiltFactName ids_name = gpus_of(sum->name);
    // A GPU that is affected counts even if another could not tell; with none found, an
    // unknown reading leaves the sum unknown.
    if (sum->gpus.empty() && !sum->unknown_why.empty()) {
      facts.set_unknown(sum->name, sum->unknown_why, k_source);
      facts.set_unknown(ids_name, sum->unknown_why, k_source);
      continue;
    }
    facts.set(sum->name, sum->gpus, k_source);
    std::string joined;
    for (const std::string& id : sum->ids) joined += (joined.empty() ? "" : ",") + id;
    if (joined.empty()) {
      facts.set_absent(ids_name, k_source, "no GPU concerned");
    } else {
      facts.set(ids_name, joined, k_source);
    }
  }
  facts.set("nvml.health.recovery_action_codes"_fact, recovery_codes, k_source);
}

}  // namespace gd
