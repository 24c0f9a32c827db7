// The overview lines: what each layer looks like, in one line each, so that "NVML sees 8 GPUs
// but cuInit fails" is visible at a glance before any finding is read.

#include <fmt/format.h>

#include "report/areas/area_support.hpp"

namespace gd::areas {
namespace {

std::string device_detail(const FactSet& facts, std::int64_t i) {
  auto key = [i](std::string_view field) { return fmt::format("cuda.device.{}.{}", i, field); };
  std::string text = fmt::format("GPU {}: {}", i, facts.get_string(key("name")).value_or("(name unknown)"));
  if (auto cc = facts.get_string(key("compute_capability"))) {
    std::string sm = *cc;
    std::erase(sm, '.');
    text += fmt::format(" · sm_{}", sm);
  }
  if (auto mib = facts.get_int(key("total_memory_mib"))) {
    text += fmt::format(" · {:.1f} GiB", static_cast<double>(*mib) / 1024.0);
  }
  if (auto bus = facts.get_string(key("pci_bus_id"))) {
    text += " · " + *bus;
  }
  auto ctx = facts.get_int(key("context.result"));
  auto alloc = facts.get_int(key("alloc.result"));
  auto module = facts.get_int(key("module.result"));
  auto kernel = facts.get_int(key("kernel.result"));
  auto check = facts.get_string(key("check"));
  if (auto stuck = facts.get_string(key("stuck"))) {
    text += fmt::format(" · STUCK in {} (the other GPUs were proven without it)", *stuck);
  } else if (auto crashed = facts.get_string(key("crashed"))) {
    text += fmt::format(" · the driver CRASHED ({})", *crashed);
  } else if (facts.get_bool(key("busy")) == true) {
    // Another job's GPU: not proven, and not broken (probes/cross_checks/gpu_busy).
    text += fmt::format(" · BUSY: {} {} while other processes hold it (not proven)", ctx && *ctx != 0 ? "context" : "allocation",
                        ctx && *ctx != 0 ? *ctx : alloc.value_or(0));
  } else if (ctx && *ctx != 0) {
    text += fmt::format(" · context FAILED ({})", *ctx);
  } else if (alloc && *alloc != 0) {
    text += fmt::format(" · allocation FAILED ({})", *alloc);
  } else if (module && *module != 0) {
    text += fmt::format(" · context + allocation OK · kernel JIT FAILED ({})", *module);
  } else if (kernel && *kernel != 0) {
    text += fmt::format(" · context + allocation OK · kernel FAILED ({})", *kernel);
  } else if (check && *check != "ok") {
    text += " · context + allocation OK · kernel computed a WRONG result";
  } else if (check) {
    text += fmt::format(" · context + allocation + kernel OK (JIT {} ms)", facts.get_int(key("module.jit_ms")).value_or(0));
  } else if (ctx && alloc) {
    text += " · context + allocation OK";
  }
  return text;
}

/// "ECC on, 0 remapped rows, persistence on": what NVML says of the GPU's health, in short;
/// what it could not tell is left out (GeForce has no ECC, no remapper).
std::string health_summary(const FactSet& facts, std::int64_t i) {
  auto key = [i](std::string_view field) { return fmt::format("nvml.device.{}.{}", i, field); };
  std::vector<std::string> parts;
  if (auto ecc = facts.get_bool(key("ecc.enabled"))) {
    std::string text = *ecc ? "ECC on" : "ECC off";
    if (auto pending = facts.get_bool(key("ecc.pending_enabled")); pending && *pending != *ecc) {
      text += *pending ? " (on after reboot)" : " (off after reboot)";
    }
    parts.push_back(text);
  }
  if (auto uncorrected = facts.get_int(key("ecc.uncorrected_volatile")); uncorrected && *uncorrected > 0) {
    parts.push_back(fmt::format("{} uncorrectable ECC errors", *uncorrected));
  }
  auto correctable = facts.get_int(key("remap.correctable"));
  auto uncorrectable = facts.get_int(key("remap.uncorrectable"));
  if (correctable && uncorrectable) {
    std::string text = fmt::format("{} remapped rows", *correctable + *uncorrectable);
    if (facts.get_bool(key("remap.pending")) == true) text += " (remapping pending)";
    if (facts.get_bool(key("remap.failure")) == true) text += " (a remapping FAILED)";
    parts.push_back(text);
  }
  if (auto action = facts.get_int(key("recovery_action")); action && *action != 0) {
    parts.push_back(fmt::format("recovery action {}", *action));
  }
  if (auto mode = facts.get_string(key("compute_mode")); mode && *mode != "Default") parts.push_back("compute mode " + *mode);
  if (facts.get_bool(key("mig.enabled")) == true) parts.push_back("MIG on");
  if (auto persistence = facts.get_bool(key("persistence"))) parts.push_back(*persistence ? "persistence on" : "persistence off");
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

AreaLine cuda_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto status = facts.get_string("cuda.helper.status");
  if (!status) {
    line.status = AreaStatus::skipped;
    line.summary = "not checked: " + unknown_reason(facts, "cuda.helper.status");
    return line;
  }
  auto nvml_count = facts.get_int("nvml.device_count");
  std::string nvml_note = nvml_count ? fmt::format("; NVML sees {} GPU{}", *nvml_count, *nvml_count == 1 ? "" : "s") : "";
  if (*status == "timeout") {
    line.summary = fmt::format("helper killed after {} ms, stuck in {}{}", facts.get_int("cuda.helper.timeout_ms").value_or(0),
                               facts.get_string("cuda.helper.stage").value_or("?"), nvml_note);
  } else if (*status == "crashed") {
    line.summary = fmt::format("helper crashed ({}) in {}", facts.get_string("cuda.helper.signal").value_or("?"),
                               facts.get_string("cuda.helper.stage").value_or("?"));
  } else if (*status == "no-glibc-loader") {
    line.summary = "no glibc dynamic loader on this host: libcuda cannot be loaded here";
  } else if (*status != "ok") {
    // Why it could not start (exec-failed: "fd limit 10 too low for the helper: raise ulimit -n").
    const Fact* init = facts.find("cuda.init.result");
    line.summary = "helper " + *status + (init && init->state == FactState::unknown && !init->reason.empty() ? ": " + init->reason : "");
  } else if (facts.get_bool("cuda.libcuda.loaded") == false) {
    line.summary = "libcuda.so.1 did not load: " + facts.get_string("cuda.libcuda.dlerror").value_or("");
  } else {
    auto init = facts.get_int("cuda.init.result");
    std::string version = facts.get_string("cuda.driver_version.text").value_or("?");
    std::string path = facts.get_string("cuda.libcuda.path").value_or("?");
    if (init && *init == 0) {
      auto count = facts.get_int("cuda.device_count").value_or(0);
      line.summary = fmt::format("CUDA {} from {}; cuInit OK in {} ms; {} device{}", version, path,
                                 facts.get_int("cuda.init.duration_ms").value_or(0), count, count == 1 ? "" : "s");
      for (std::int64_t i = 0; i < count && i < 1024; ++i) {
        line.details.push_back(device_detail(facts, i));
      }
    } else if (init) {
      line.summary = fmt::format("cuInit failed: {} {} (libcuda {}){}", *init, facts.get_string("cuda.init.name").value_or(""),
                                 path, nvml_note);
    } else {
      line.summary = "cuInit result unknown: " + unknown_reason(facts, "cuda.init.result");
    }
  }
  // A failed cuInit is a failure of this layer even when its cause (and so its finding) lies below.
  auto init_result = facts.get_int("cuda.init.result");
  bool not_loaded = facts.get_bool("cuda.libcuda.loaded") == false;
  AreaStatus fallback = init_result == 0                ? AreaStatus::ok
                        : (init_result || not_loaded) ? AreaStatus::error
                                                      : AreaStatus::unknown;
  line.status = status_for(findings, layer, fallback);
  return line;
}

AreaLine nvml_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto loaded = facts.get_bool("nvml.loaded");
  if (!loaded) {
    line.status = AreaStatus::skipped;
    line.summary = "not checked: " + unknown_reason(facts, "nvml.loaded");
    return line;
  }
  if (!*loaded) {
    line.status = status_for(findings, layer, AreaStatus::warning);
    line.summary = "libnvidia-ml.so.1 did not load: " + facts.get_string("nvml.dlerror").value_or("");
    return line;
  }
  auto init = facts.get_int("nvml.init.result");
  if (init && *init == 0) {
    auto count = facts.get_int("nvml.device_count").value_or(0);
    line.summary = fmt::format("driver {}, {} GPU{}", facts.get_string("nvml.driver_version").value_or("?"), count,
                               count == 1 ? "" : "s");
    for (std::int64_t i = 0; i < count && i < 1024; ++i) {
      auto key = [i](std::string_view field) { return fmt::format("nvml.device.{}.{}", i, field); };
      std::string detail = fmt::format("GPU {}: {} · {}", i, facts.get_string(key("name")).value_or("?"),
                                       facts.get_string(key("pci_bus_id")).value_or("?"));
      std::string health = health_summary(facts, i);
      line.details.push_back(health.empty() ? detail : detail + " · " + health);
    }
    line.status = status_for(findings, layer, AreaStatus::ok);
  } else {
    line.summary = init ? fmt::format("nvmlInit failed: {} {}", *init, facts.get_string("nvml.init.text").value_or(""))
                        : "nvmlInit result unknown";
    line.status = status_for(findings, layer, AreaStatus::warning);
  }
  return line;
}

AreaLine environment_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  std::vector<std::string> parts;
  for (auto [fact, variable] : {std::pair{"env.cuda_visible_devices", "CUDA_VISIBLE_DEVICES"},
                                std::pair{"env.ld_library_path", "LD_LIBRARY_PATH"}, std::pair{"env.ld_preload", "LD_PRELOAD"}}) {
    if (auto value = facts.get_string(fact)) {
      parts.push_back(fmt::format("{}={}", variable, *value));
    }
  }
  line.summary = parts.empty() ? "no CUDA-related variables set" : fmt::format("{}", fmt::join(parts, ", "));
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
