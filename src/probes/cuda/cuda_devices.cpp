#include "probes/cuda/cuda_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/cuda/cuda_result_names.hpp"

namespace gd {
namespace {

std::string source(std::string_view step) { return fmt::format("helper:{}", step); }

// The sums the rules test; set together so that none is left uncollected.
constexpr std::array<FactName, 15> k_device_sums = {
    "cuda.kernel.failed_gpus"_fact, "cuda.kernel.wrong_gpus"_fact, "cuda.devices.stuck_gpus"_fact,
    "cuda.context.failed_count"_fact,       "cuda.context.failures"_fact,         "cuda.kernel.proven_count"_fact,
    "cuda.kernel.module_failures"_fact,     "cuda.kernel.module_result_codes"_fact, "cuda.kernel.launch_failures"_fact,
    "cuda.kernel.launch_result_codes"_fact, "cuda.kernel.wrong_results"_fact,      "cuda.devices.stuck"_fact,
    "cuda.devices.stuck_count"_fact,        "cuda.devices.not_started"_fact,       "cuda.devices.stuck_with_time"_fact,
};

/// "GPU 2 (0000:1a:00.0)": how findings name a GPU (index as CUDA numbers it, and its bus id,
/// which nvidia-smi and the kernel log use).
std::string gpu_name(const HelperCudaDevice& dev) {
  return dev.pci_bus_id ? fmt::format("GPU {} ({})", dev.index, *dev.pci_bus_id) : fmt::format("GPU {}", dev.index);
}

/// "719 CUDA_ERROR_LAUNCH_FAILED": the code and its name (cuda.h's when the driver gave none).
std::string call_text(const HelperCall& call) {
  int code = call.result.value_or(-1);
  std::string name = call.name.value_or("");
  if (name.empty() || !name.starts_with("CUDA_")) name = std::string(cuda_result_name(code));
  if (code == -1 && call.error) name = *call.error;
  return name.empty() ? std::to_string(code) : fmt::format("{} {}", code, name);
}

void add_code(std::vector<std::string>& codes, int code) {
  std::string text = std::to_string(code);
  if (std::find(codes.begin(), codes.end(), text) == codes.end()) codes.push_back(text);
}

/// Each step of the GPU's thread with how long it took ("context 112 ms").
std::vector<std::string> device_timeline(const HelperSteps& steps) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < steps.starts.size(); ++i) {
    std::int64_t us = steps.starts[i + 1].second - steps.starts[i].second;
    out.push_back(fmt::format("{} {} ms", steps.starts[i].first, (us + 500) / 1000));
  }
  if (!steps.starts.empty() && steps.starts.back().first != "done") {
    out.push_back(fmt::format("{} (did not finish)", steps.starts.back().first));
  }
  return out;
}

struct Sums {
  std::int64_t context_failed = 0;
  std::vector<std::string> context_failures;
  std::int64_t proven = 0;
  std::vector<std::string> module_failures, module_codes, launch_failures, launch_codes, wrong_results, stuck;
  // The GPUs concerned, as nvidia-smi -i takes them (CUDA's index is not nvidia-smi's).
  std::vector<std::string> failed_ids, wrong_ids, stuck_ids;
};

/// How nvidia-smi -i names the GPU: its UUID (the same in CUDA and NVML), else its bus id.
std::string smi_id(const HelperCudaDevice& dev) {
  if (dev.uuid) return *dev.uuid;
  return dev.pci_bus_id.value_or(std::to_string(dev.index));
}

/// "GPU-a,GPU-b", or absent when no GPU is concerned (a fix names it only when it applies).
void set_id_list(FactSet& facts, FactName name, const std::vector<std::string>& ids, const std::string& src) {
  if (ids.empty()) {
    facts.set_absent(name, src, "no GPU concerned");
    return;
  }
  std::string joined;
  for (const std::string& id : ids) joined += (joined.empty() ? "" : ",") + id;
  facts.set(name, joined, src);
}

/// The kernel proof of one GPU whose context and allocation worked.
void record_kernel(const HelperCudaDevice& dev, FactSet& facts, Sums& sums) {
  auto key = [&](FactField<"cuda.device.*."> field) { return field.at(dev.index); };
  const std::string step = source(fmt::format("kernel:{}", dev.index));
  const std::string gpu = gpu_name(dev);
  if (dev.module.result) {
    facts.set(key("module.result"), std::int64_t{*dev.module.result}, step);
    if (dev.module_duration_us) facts.set(key("module.jit_ms"), (*dev.module_duration_us + 500) / 1000, step);
    if (dev.module_log) facts.set(key("module.log"), *dev.module_log, step);
    if (*dev.module.result != 0) {
      sums.module_failures.push_back(fmt::format("{}: cuModuleLoadDataEx {}", gpu, call_text(dev.module)));
      add_code(sums.module_codes, *dev.module.result);
      sums.failed_ids.push_back(smi_id(dev));
      return;
    }
  }
  if (dev.function.result && *dev.function.result != 0) {
    sums.module_failures.push_back(fmt::format("{}: cuModuleGetFunction {}", gpu, call_text(dev.function)));
    add_code(sums.module_codes, *dev.function.result);
    sums.failed_ids.push_back(smi_id(dev));
    return;
  }
  // Where a kernel fails: the launch itself, the synchronize after it (asynchronous faults:
  // 719, 700, 214), or the copy of its result.
  const std::pair<const char*, const HelperCall*> calls[] = {
      {"cuLaunchKernel", &dev.launch}, {"cuCtxSynchronize", &dev.sync}, {"cuMemcpyDtoH", &dev.copy}};
  for (const auto& [name, call] : calls) {
    if (call->result && *call->result != 0) {
      facts.set(key("kernel.result"), std::int64_t{*call->result}, step);
      sums.launch_failures.push_back(fmt::format("{}: {} {}", gpu, name, call_text(*call)));
      add_code(sums.launch_codes, *call->result);
      sums.failed_ids.push_back(smi_id(dev));
      return;
    }
  }
  if (dev.crashed) {
    sums.launch_failures.push_back(fmt::format("{}: the driver crashed ({})", gpu, *dev.crashed));
    sums.failed_ids.push_back(smi_id(dev));
    return;
  }
  if (dev.sync_duration_us) facts.set(key("kernel.ms"), (*dev.sync_duration_us + 500) / 1000, step);
  if (dev.check) {
    facts.set(key("check"), *dev.check, step);
    if (*dev.check == "ok") {
      ++sums.proven;
    } else {
      std::string detail = fmt::format("element {} is {} instead of {}", dev.check_index.value_or(-1),
                                       dev.check_value.value_or("?"), dev.check_expected.value_or("?"));
      facts.set(key("check.detail"), detail, step);
      sums.wrong_results.push_back(fmt::format("{}: {}", gpu, detail));
      sums.wrong_ids.push_back(smi_id(dev));
    }
  }
}

void record_device(const HelperCudaDevice& dev, FactSet& facts, Sums& sums) {
  auto key = [&](FactField<"cuda.device.*."> field) { return field.at(dev.index); };
  std::string step = source(fmt::format("device:{}", dev.index));
  if (dev.name) facts.set(key("name"), *dev.name, step);
  if (dev.uuid) facts.set(key("uuid"), *dev.uuid, step);
  if (dev.pci_bus_id) facts.set(key("pci_bus_id"), *dev.pci_bus_id, step);
  if (dev.cc_major && dev.cc_minor) {
    facts.set(key("compute_capability"), fmt::format("{}.{}", *dev.cc_major, *dev.cc_minor), step);
  }
  if (dev.total_memory_bytes) {
    facts.set(key("total_memory_mib"), *dev.total_memory_bytes / (1024 * 1024), step);
  }
  if (!dev.steps.starts.empty()) facts.set(key("timeline"), device_timeline(dev.steps), source("timeline"));
  if (dev.stuck) {
    facts.set(key("stuck"), *dev.stuck, step);
    sums.stuck.push_back(fmt::format("{}: stuck in {}", gpu_name(dev), *dev.stuck));
    sums.stuck_ids.push_back(smi_id(dev));
  }
  if (dev.crashed) facts.set(key("crashed"), *dev.crashed, step);
  std::string ctx_step = source(fmt::format("context:{}", dev.index));
  if (dev.context.result) {
    facts.set(key("context.result"), std::int64_t{*dev.context.result}, ctx_step);
    if (*dev.context.result != 0) {
      ++sums.context_failed;
      sums.context_failures.push_back(
          fmt::format("{}: context {} {}", dev.index, *dev.context.result, dev.context.name.value_or("")));
      return;
    }
  }
  if (dev.alloc.result) {
    facts.set(key("alloc.result"), std::int64_t{*dev.alloc.result}, ctx_step);
    if (*dev.alloc.result != 0) {
      ++sums.context_failed;
      sums.context_failures.push_back(
          fmt::format("{}: allocation {} {}", dev.index, *dev.alloc.result, dev.alloc.name.value_or("")));
      return;
    }
  }
  if (dev.crashed && !dev.alloc.result) {
    // Crashed before the kernel: in the context or the allocation.
    sums.launch_failures.push_back(fmt::format("{}: the driver crashed ({})", gpu_name(dev), *dev.crashed));
    sums.failed_ids.push_back(smi_id(dev));
    return;
  }
  if (dev.alloc.result) record_kernel(dev, facts, sums);
}

}  // namespace

void record_no_cuda_devices(FactSet& facts, bool unknown, const std::string& why, const std::string& src) {
  for (FactName name : k_device_sums) {
    if (unknown) {
      facts.set_unknown(name, why, src);
    } else {
      facts.set_absent(name, src, why);
    }
  }
}

void record_cuda_devices(const HelperReply& reply, FactSet& facts, const std::string& not_reached) {
  Sums sums;
  for (const HelperCudaDevice& dev : reply.cuda_devices) {
    record_device(dev, facts, sums);
  }
  const std::string src = source("devices");
  // The context sums hold when the reply is complete, or when it already shows a failure.
  if (reply.complete || sums.context_failed > 0) {
    facts.set("cuda.context.failed_count"_fact, sums.context_failed, source("context"));
    facts.set("cuda.context.failures"_fact, sums.context_failures, source("context"));
  } else {
    facts.set_unknown("cuda.context.failed_count"_fact, not_reached, source("context"));
    facts.set_unknown("cuda.context.failures"_fact, not_reached, source("context"));
  }
  // Protocol 1.0 helpers (older captures) ran no kernel and waited for each GPU in turn.
  if (reply.protocol_minor < 1) {
    const std::string why = "the helper of this capture predates the kernel proof (protocol 1.0)";
    for (FactName name : k_device_sums) {
      if (!name.view().starts_with("cuda.context.")) facts.set_unknown(name, why, src);
    }
    return;
  }
  if (!reply.complete) {
    for (FactName name : k_device_sums) {
      if (!name.view().starts_with("cuda.context.")) facts.set_unknown(name, not_reached, src);
    }
    return;
  }
  facts.set("cuda.kernel.proven_count"_fact, sums.proven, source("kernel"));
  facts.set("cuda.kernel.module_failures"_fact, sums.module_failures, source("kernel"));
  facts.set("cuda.kernel.module_result_codes"_fact, sums.module_codes, source("kernel"));
  facts.set("cuda.kernel.launch_failures"_fact, sums.launch_failures, source("kernel"));
  facts.set("cuda.kernel.launch_result_codes"_fact, sums.launch_codes, source("kernel"));
  facts.set("cuda.kernel.wrong_results"_fact, sums.wrong_results, source("kernel"));
  facts.set("cuda.devices.stuck"_fact, sums.stuck, src);
  facts.set("cuda.devices.stuck_count"_fact, static_cast<std::int64_t>(sums.stuck.size()), src);
  // The caller, which knows the deadline, makes this unknown when the GPUs had too little of it.
  facts.set("cuda.devices.stuck_with_time"_fact, static_cast<std::int64_t>(sums.stuck.size()), src);
  facts.set("cuda.devices.not_started"_fact, std::int64_t{reply.cuda_devices_not_started.value_or(0)}, src);
  set_id_list(facts, "cuda.kernel.failed_gpus"_fact, sums.failed_ids, source("kernel"));
  set_id_list(facts, "cuda.kernel.wrong_gpus"_fact, sums.wrong_ids, source("kernel"));
  set_id_list(facts, "cuda.devices.stuck_gpus"_fact, sums.stuck_ids, src);
}

}  // namespace gd
