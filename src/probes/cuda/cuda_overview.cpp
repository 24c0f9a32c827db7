// The CUDA line: what the helper's libcuda said, cuInit and each device's proof.
#include "probes/cuda/cuda_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {
namespace {

std::string device_detail(const FactSet& facts, std::int64_t i) {
  auto key = [i](FactField<"cuda.device.*."> field) { return field.at(i); };
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

}  // namespace

AreaLine cuda_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto status = facts.get_string("cuda.helper.status"_fact);
  if (!status) {
    line.status = AreaStatus::skipped;
    line.summary = "not checked: " + unknown_reason(facts, "cuda.helper.status"_fact);
    return line;
  }
  auto nvml_count = facts.get_int("nvml.device_count"_fact);
  std::string nvml_note = nvml_count ? fmt::format("; NVML sees {} GPU{}", *nvml_count, *nvml_count == 1 ? "" : "s") : "";
  if (*status == "timeout") {
    line.summary = fmt::format("helper killed after {} ms, stuck in {}{}", facts.get_int("cuda.helper.timeout_ms"_fact).value_or(0),
                               facts.get_string("cuda.helper.stage"_fact).value_or("?"), nvml_note);
  } else if (*status == "crashed") {
    line.summary = fmt::format("helper crashed ({}) in {}", facts.get_string("cuda.helper.signal"_fact).value_or("?"),
                               facts.get_string("cuda.helper.stage"_fact).value_or("?"));
  } else if (*status == "no-glibc-loader") {
    line.summary = "no glibc dynamic loader on this host: libcuda cannot be loaded here";
  } else if (*status != "ok") {
    // Why it could not start (exec-failed: "fd limit 10 too low for the helper: raise ulimit -n").
    const Fact* init = facts.find("cuda.init.result"_fact);
    line.summary = "helper " + *status + (init && init->state == FactState::unknown && !init->reason.empty() ? ": " + init->reason : "");
  } else if (facts.get_bool("cuda.libcuda.loaded"_fact) == false) {
    line.summary = "libcuda.so.1 did not load: " + facts.get_string("cuda.libcuda.dlerror"_fact).value_or("");
  } else {
    auto init = facts.get_int("cuda.init.result"_fact);
    std::string version = facts.get_string("cuda.driver_version.text"_fact).value_or("?");
    std::string path = facts.get_string("cuda.libcuda.path"_fact).value_or("?");
    if (init && *init == 0) {
      auto count = facts.get_int("cuda.device_count"_fact).value_or(0);
      line.summary = fmt::format("CUDA {} from {}; cuInit OK in {} ms; {} device{}", version, path,
                                 facts.get_int("cuda.init.duration_ms"_fact).value_or(0), count, count == 1 ? "" : "s");
      for (std::int64_t i = 0; i < count && i < 1024; ++i) {
        line.details.push_back(device_detail(facts, i));
      }
    } else if (init) {
      line.summary = fmt::format("cuInit failed: {} {} (libcuda {}){}", *init, facts.get_string("cuda.init.name"_fact).value_or(""),
                                 path, nvml_note);
    } else {
      line.summary = "cuInit result unknown: " + unknown_reason(facts, "cuda.init.result"_fact);
    }
  }
  // A failed cuInit is a failure of this layer even when its cause (and so its finding) lies below.
  auto init_result = facts.get_int("cuda.init.result"_fact);
  bool not_loaded = facts.get_bool("cuda.libcuda.loaded"_fact) == false;
  AreaStatus fallback = init_result == 0                ? AreaStatus::ok
                        : (init_result || not_loaded) ? AreaStatus::error
                                                      : AreaStatus::unknown;
  line.status = status_for(findings, layer, fallback);
  return line;
}

}  // namespace gd::areas
