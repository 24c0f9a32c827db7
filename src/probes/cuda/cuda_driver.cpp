#include "probes/cuda/cuda_driver.hpp"

#include <fmt/format.h>

#include <array>

#include "core/fact_key.hpp"
#include "probes/cuda/cuda_devices.hpp"
#include "probes/cuda/cuda_result_names.hpp"
#include "probes/cuda/nvml_health.hpp"
#include "probes/cuda/peer_pairs.hpp"
#include "sys/helper_exec.hpp"
#include "util/signal_names.hpp"

namespace gd {
namespace {

constexpr std::string_view k_src_helper = "helper";

// The variables the clean-environment run removes (they change which libcuda loads or which
// GPUs CUDA sees), with the facts that hold the user's values.
constexpr std::array<std::pair<std::string_view, FactName>, 3> k_clean_env_vars = {{
    {"LD_LIBRARY_PATH", "env.ld_library_path"_fact},
    {"LD_PRELOAD", "env.ld_preload"_fact},
    {"CUDA_VISIBLE_DEVICES", "env.cuda_visible_devices"_fact},
}};

// Facts that say nothing when the helper could not run: all set unknown with the reason.
constexpr std::array<FactName, 14> k_helper_facts = {
    "cuda.helper.status"_fact, "cuda.libcuda.loaded"_fact,        "cuda.libcuda.path"_fact, "cuda.libcuda.is_stub"_fact,
    "cuda.driver_version"_fact, "cuda.driver_version.result"_fact, "cuda.init.result"_fact,  "cuda.device_count"_fact,
    "nvml.loaded"_fact,        "nvml.init.result"_fact,           "nvml.device_count"_fact, "nvml.driver_version"_fact,
    "nvml.stuck"_fact,         "nvml.failure"_fact,
};

std::string source(std::string_view step) { return fmt::format("{}:{}", k_src_helper, step); }

/// No second run happened: its facts are absent, not unknown (rules about it are then false).
void set_no_clean_run(FactSet& facts, const std::string& src, const std::string& why) {
  facts.set("cuda.clean_env.ran"_fact, false, src);
  for (FactName name : {"cuda.clean_env.status"_fact, "cuda.clean_env.libcuda.loaded"_fact, "cuda.clean_env.init.result"_fact,
                                "cuda.clean_env.device_count"_fact, "cuda.clean_env.removed"_fact}) {
    facts.set_absent(name, src, why);
  }
}

void set_all_unknown(FactSet& facts, const std::string& reason) {
  for (FactName name : k_helper_facts) {
    facts.set_unknown(name, reason, std::string(k_src_helper));
  }
  record_no_cuda_devices(facts, true, reason, std::string(k_src_helper));
  record_no_nvml_health(facts, reason, std::string(k_src_helper));
  record_no_peer_pairs(facts, reason, std::string(k_src_helper));
  set_no_clean_run(facts, std::string(k_src_helper), reason);
}

void set_optional_string(FactSet& facts, FactName name, const std::optional<std::string>& value,
                         std::string_view step, const std::string& missing_reason) {
  if (value) {
    facts.set(name, *value, source(step));
  } else {
    facts.set_unknown(name, missing_reason, source(step));
  }
}

/// Sets the cuda.* facts from a reply. `not_reached` explains values the helper never got to.
void record_cuda(const HelperReply& reply, FactSet& facts, const std::string& not_reached) {
  if (!reply.cuda_dlopen_ok) {
    facts.set_unknown("cuda.libcuda.loaded"_fact, not_reached, source("dlopen"));
    record_no_cuda_devices(facts, true, not_reached, source("dlopen"));
    return;
  }
  facts.set("cuda.libcuda.loaded"_fact, *reply.cuda_dlopen_ok, source("dlopen"));
  if (!*reply.cuda_dlopen_ok) {
    facts.set("cuda.libcuda.dlerror"_fact, reply.cuda_dlerror.value_or(""), source("dlopen"));
    const std::string note = "libcuda did not load";
    for (FactName name : {"cuda.libcuda.path"_fact, "cuda.libcuda.is_stub"_fact, "cuda.driver_version.result"_fact,
                                  "cuda.driver_version"_fact, "cuda.init.result"_fact, "cuda.device_count"_fact}) {
      facts.set_absent(name, source("dlopen"), note);
    }
    record_no_cuda_devices(facts, false, note, source("dlopen"));
    return;
  }
  set_optional_string(facts, "cuda.libcuda.path"_fact, reply.cuda_path, "dladdr", not_reached);

  auto version_result = reply.cuda_driver_version_call.result;
  if (version_result) {
    facts.set("cuda.driver_version.result"_fact, std::int64_t{*version_result}, source("cuDriverGetVersion"));
  } else {
    facts.set_unknown("cuda.driver_version.result"_fact, not_reached, source("cuDriverGetVersion"));
  }
  if (reply.cuda_driver_version && version_result == 0) {
    facts.set("cuda.driver_version"_fact, std::int64_t{*reply.cuda_driver_version}, source("cuDriverGetVersion"));
    facts.set("cuda.driver_version.text"_fact, cuda_version_text(*reply.cuda_driver_version), source("cuDriverGetVersion"));
  } else {
    facts.set_unknown("cuda.driver_version"_fact, version_result ? "cuDriverGetVersion failed" : not_reached,
                      source("cuDriverGetVersion"));
  }

  const HelperCall& init = reply.cuda_init;
  if (init.result) {
    facts.set("cuda.init.result"_fact, std::int64_t{*init.result}, source("cuInit"));
    // The stub cannot name its own results; fall back to cuda.h's names.
    std::string name = init.name.value_or("");
    if (name.empty() || !name.starts_with("CUDA_")) {
      name = std::string(cuda_result_name(*init.result));
    }
    facts.set("cuda.init.name"_fact, name.empty() ? init.error.value_or("?") : name, source("cuInit"));
    facts.set("cuda.init.text"_fact, init.text.value_or(""), source("cuInit"));
  } else {
    facts.set_unknown("cuda.init.result"_fact, not_reached, source("cuInit"));
  }
  if (reply.cuda_init_duration_us) {
    facts.set("cuda.init.duration_ms"_fact, *reply.cuda_init_duration_us / 1000, source("cuInit"));
  }

  // The toolkit's stub lives under .../stubs/ and answers every call with 34.
  bool stub_path = reply.cuda_path && reply.cuda_path->find("/stubs/") != std::string::npos;
  bool stub_result = init.result == 34 || version_result == 34;
  facts.set("cuda.libcuda.is_stub"_fact, stub_path || stub_result, source("dlopen"));

  if (init.result != 0) {
    facts.set_absent("cuda.device_count"_fact, source("cuInit"), "cuInit did not succeed");
    record_no_cuda_devices(facts, false, "cuInit did not succeed", source("cuInit"));
    return;
  }
  if (reply.cuda_device_count) {
    facts.set("cuda.device_count"_fact, std::int64_t{*reply.cuda_device_count}, source("cuDeviceGetCount"));
  } else {
    facts.set_unknown("cuda.device_count"_fact, not_reached, source("cuDeviceGetCount"));
  }
  record_cuda_devices(reply, facts, not_reached);
}

void record_nvml(const HelperReply& reply, FactSet& facts, const std::string& not_reached) {
  if (!reply.nvml_dlopen_ok) {
    facts.set_unknown("nvml.loaded"_fact, not_reached, source("dlopen-nvml"));
    facts.set_unknown("nvml.failure"_fact, not_reached, source("dlopen-nvml"));
    record_no_nvml_health(facts, not_reached, source("dlopen-nvml"));
    return;
  }
  facts.set("nvml.loaded"_fact, *reply.nvml_dlopen_ok, source("dlopen-nvml"));
  if (!*reply.nvml_dlopen_ok) {
    facts.set("nvml.dlerror"_fact, reply.nvml_dlerror.value_or(""), source("dlopen-nvml"));
    facts.set("nvml.failure"_fact, "libnvidia-ml.so.1 did not load: " + reply.nvml_dlerror.value_or(""), source("dlopen-nvml"));
    for (FactName name : {"nvml.init.result"_fact, "nvml.device_count"_fact, "nvml.driver_version"_fact}) {
      facts.set_absent(name, source("dlopen-nvml"), "libnvidia-ml did not load");
    }
    record_no_nvml_health(facts, "libnvidia-ml did not load", source("dlopen-nvml"));
    return;
  }
  set_optional_string(facts, "nvml.path"_fact, reply.nvml_path, "dlopen-nvml", not_reached);
  if (!reply.nvml_init.result) {
    facts.set_unknown("nvml.init.result"_fact, not_reached, source("nvmlInit"));
    facts.set_unknown("nvml.failure"_fact, not_reached, source("nvmlInit"));
    record_no_nvml_health(facts, not_reached, source("nvmlInit"));
    return;
  }
  facts.set("nvml.init.result"_fact, std::int64_t{*reply.nvml_init.result}, source("nvmlInit"));
  facts.set("nvml.init.text"_fact, reply.nvml_init.text.value_or(""), source("nvmlInit"));
  if (*reply.nvml_init.result != 0) {
    facts.set("nvml.failure"_fact, fmt::format("nvmlInit returned {} ({})", *reply.nvml_init.result, reply.nvml_init.text.value_or("")),
              source("nvmlInit"));
    facts.set_absent("nvml.device_count"_fact, source("nvmlInit"), "nvmlInit did not succeed");
    facts.set_absent("nvml.driver_version"_fact, source("nvmlInit"), "nvmlInit did not succeed");
    record_no_nvml_health(facts, "nvmlInit did not succeed", source("nvmlInit"));
    return;
  }
  facts.set_absent("nvml.failure"_fact, source("nvmlInit"), "nvmlInit returned 0");
  set_optional_string(facts, "nvml.driver_version"_fact, reply.nvml_driver_version, "nvmlSystemGetDriverVersion", not_reached);
  if (reply.nvml_device_count) {
    facts.set("nvml.device_count"_fact, std::int64_t{*reply.nvml_device_count}, source("nvmlDeviceGetCount"));
  } else {
    facts.set_unknown("nvml.device_count"_fact, not_reached, source("nvmlDeviceGetCount"));
  }
  for (const HelperNvmlDevice& dev : reply.nvml_devices) {
    auto key = [&](FactField<"nvml.device.*."> field) { return field.at(dev.index); };
    std::string step = fmt::format("nvml-device:{}", dev.index);
    if (dev.name) facts.set(key("name"), *dev.name, source(step));
    if (dev.uuid) facts.set(key("uuid"), *dev.uuid, source(step));
    if (dev.pci_bus_id) facts.set(key("pci_bus_id"), *dev.pci_bus_id, source(step));
  }
  // NVML's thread finished (1.1), or the whole reply did (1.0, whose health is unknown anyway).
  if (reply.nvml_steps.last == "done" || (reply.protocol_minor < 1 && reply.complete)) {
    record_nvml_health(reply, facts);
  } else {
    record_no_nvml_health(facts, not_reached, source("nvml"));
  }
}

struct RunSummary {
  std::string status;  ///< the cuda.helper.status value
  std::optional<HelperReply> reply;
};

/// Classifies one helper run and parses its reply.
RunSummary summarise(const HelperOutcome& outcome) {
  RunSummary summary;
  switch (outcome.status) {
    case HelperOutcome::Status::timed_out: summary.status = "timeout"; break;
    case HelperOutcome::Status::crashed: summary.status = "crashed"; break;
    case HelperOutcome::Status::no_loader: summary.status = "no-glibc-loader"; return summary;
    case HelperOutcome::Status::exec_failed: summary.status = "exec-failed"; return summary;
    case HelperOutcome::Status::not_run: summary.status = "not-run"; return summary;
    case HelperOutcome::Status::finished: summary.status = "ok"; break;
  }
  auto reply = parse_helper_reply(outcome.reply);
  if (!reply) {
    // A helper killed before its header line leaves nothing to parse; that is still a hang
    // or a crash, not a protocol problem.
    if (summary.status == "ok") {
      summary.status = "protocol-error";
    }
    return summary;
  }
  summary.reply = std::move(*reply);
  if (summary.status == "ok" && (!summary.reply->complete || outcome.exit_code != 0)) {
    summary.status = "exit-failure";  // something in libcuda/NVML ended the process early
  }
  return summary;
}

std::string not_reached_reason(const RunSummary& summary, const HelperOutcome& outcome) {
  std::string stage = summary.reply ? summary.reply->last_stage : "start";
  if (summary.status == "timeout") return fmt::format("helper hung in {} and was killed", stage);
  if (summary.status == "crashed") return fmt::format("helper crashed ({}) in {}", signal_name(outcome.signal), stage);
  if (summary.status == "exit-failure") return fmt::format("helper exited ({}) in {}", outcome.exit_code, stage);
  return "helper did not get there";
}

bool run_failed(const RunSummary& summary) {
  if (summary.status != "ok" || !summary.reply) return true;
  return summary.reply->cuda_dlopen_ok != true || summary.reply->cuda_init.result != 0;
}

/// Durations of the helper's steps from their start times; the last step ("done") ends the work.
void record_timeline(const HelperReply& reply, FactSet& facts) {
  const auto& starts = reply.stage_starts;
  if (starts.empty()) {
    return;
  }
  std::vector<std::string> timeline;
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    std::int64_t us = starts[i + 1].second - starts[i].second;
    timeline.push_back(fmt::format("{} {} ms", starts[i].first, (us + 500) / 1000));
  }
  if (starts.back().first == "done") {
    facts.set("cuda.helper.work_ms"_fact, (starts.back().second + 500) / 1000, source("timeline"));
  } else {
    timeline.push_back(fmt::format("{} (did not finish)", starts.back().first));
  }
  facts.set("cuda.helper.timeline"_fact, timeline, source("timeline"));
}

/// A GPU still in its proof at the deadline is stuck only if it had a fair share of the deadline:
/// a cuInit that took most of it (25 s of 30 on the real H200 VM when no process keeps the GPU
/// initialised) leaves the GPUs seconds for context, JIT and kernel, and slowness is no hang.
void judge_stuck_time(const HelperReply& reply, std::int64_t timeout_ms, FactSet& facts) {
  std::optional<std::int64_t> stuck = facts.get_int("cuda.devices.stuck_count"_fact);
  if (!stuck || *stuck == 0) return;
  std::optional<std::int64_t> devices_at_us;
  for (const auto& [stage, at_us] : reply.stage_starts) {
    if (stage == "devices") devices_at_us = at_us;
  }
  const std::int64_t deadline_ms = helper_deadline_ms(static_cast<int>(timeout_ms));
  const std::int64_t given_ms = devices_at_us ? deadline_ms - *devices_at_us / 1000 : -1;
  if (devices_at_us && given_ms * 2 >= deadline_ms) return;
  facts.set_unknown("cuda.devices.stuck_with_time"_fact,
                    devices_at_us ? fmt::format("the GPUs had {} ms of the helper's {} ms deadline after a cuInit of {} ms: too "
                                                "little to call a GPU stuck; run again with a longer --cuda-timeout",
                                                given_ms, deadline_ms, reply.cuda_init_duration_us.value_or(0) / 1000)
                                  : std::string("the helper's reply does not say when the GPUs' proofs started"),
                    source("devices"));
}

void record_first_run(const HelperOutcome& outcome, const RunSummary& summary, const ProbeOptions& options,
                      FactSet& facts) {
  const std::string src(k_src_helper);
  facts.set("cuda.helper.timeout_ms"_fact, std::int64_t{outcome.timeout_ms ? outcome.timeout_ms : options.cuda_timeout_ms}, src);
  facts.set("cuda.helper.status"_fact, summary.status, src);
  facts.set("cuda.helper.duration_ms"_fact, outcome.duration_ms, src);
  if (!outcome.loader.empty()) facts.set("cuda.helper.loader"_fact, outcome.loader, src);
  if (outcome.status == HelperOutcome::Status::crashed) facts.set("cuda.helper.signal"_fact, signal_name(outcome.signal), src);
  std::string cut = outcome.output_cut ? " [cut]" : "";
  if (!outcome.out.empty()) facts.set("cuda.helper.stdout"_fact, outcome.out + cut, src + ":stdout");
  if (!outcome.err.empty()) facts.set("cuda.helper.stderr"_fact, outcome.err + cut, src + ":stderr");
  if (summary.reply) {
    facts.set("cuda.helper.stage"_fact, summary.reply->last_stage, src);
    record_timeline(*summary.reply, facts);
    std::string reason = not_reached_reason(summary, outcome);
    record_cuda(*summary.reply, facts, reason);
    record_peer_pairs(*summary.reply, facts, summary.reply->cuda_dlopen_ok == false ? "libcuda did not load" : reason);
    judge_stuck_time(*summary.reply, outcome.timeout_ms ? outcome.timeout_ms : options.cuda_timeout_ms, facts);
    // NVML runs in its own thread: stuck or crashed there, the rest of the reply still holds.
    const HelperReply& reply = *summary.reply;
    std::string nvml_reason = reason;
    if (reply.nvml_stuck) {
      nvml_reason = fmt::format("NVML was still in {} when the helper's deadline came", *reply.nvml_stuck);
      facts.set("nvml.stuck"_fact, *reply.nvml_stuck, source("nvml"));
    } else if (reply.nvml_crashed) {
      nvml_reason = fmt::format("NVML crashed ({})", *reply.nvml_crashed);
      facts.set("nvml.stuck"_fact, "crashed: " + *reply.nvml_crashed, source("nvml"));
    } else if (reply.complete) {
      facts.set_absent("nvml.stuck"_fact, source("nvml"), "NVML finished");
    }
    record_nvml(reply, facts, nvml_reason);
  } else {
    std::string reason = outcome.error.empty() ? "helper " + summary.status : outcome.error;
    for (FactName name : k_helper_facts) {
      if (name != "cuda.helper.status"_fact) facts.set_unknown(name, reason, src);
    }
    record_no_cuda_devices(facts, true, reason, src);
    record_no_nvml_health(facts, reason, src);
    record_no_peer_pairs(facts, reason, src);
  }
}

void record_clean_run(Host& host, const ProbeOptions& options, FactSet& facts) {
  const std::string src = "helper:clean-env";
  std::vector<std::string> removed;
  for (auto [variable, fact] : k_clean_env_vars) {
    if (auto value = facts.get_string(fact)) {
      removed.push_back(fmt::format("{}={}", variable, *value));
    }
  }
  if (removed.empty()) {
    // Nothing to remove: a second run would be the same as the first.
    set_no_clean_run(facts, src, "LD_LIBRARY_PATH, LD_PRELOAD and CUDA_VISIBLE_DEVICES are unset");
    return;
  }
  // The first run's request, with the variables CUDA reads removed; the InfoROM was read once.
  HelperRequest request = first_helper_request(options);
  request.clean_env = true;
  request.check_inforom = false;
  request.p2p_bandwidth = false;  // measured once, by the first run
  HelperOutcome outcome = host.run_cuda_helper(request);
  RunSummary summary = summarise(outcome);
  if (summary.status == "not-run") {
    set_no_clean_run(facts, src, outcome.error);
    return;
  }
  facts.set("cuda.clean_env.ran"_fact, true, src);
  facts.set("cuda.clean_env.removed"_fact, removed, src);
  facts.set("cuda.clean_env.status"_fact, summary.status, src);
  if (!summary.reply || !summary.reply->cuda_dlopen_ok) {
    facts.set_unknown("cuda.clean_env.libcuda.loaded"_fact, not_reached_reason(summary, outcome), src);
    facts.set_unknown("cuda.clean_env.init.result"_fact, not_reached_reason(summary, outcome), src);
    return;
  }
  const HelperReply& reply = *summary.reply;
  facts.set("cuda.clean_env.libcuda.loaded"_fact, *reply.cuda_dlopen_ok, src);
  if (reply.cuda_path) facts.set("cuda.clean_env.libcuda.path"_fact, *reply.cuda_path, src);
  if (reply.cuda_init.result) {
    facts.set("cuda.clean_env.init.result"_fact, std::int64_t{*reply.cuda_init.result}, src);
  } else if (!*reply.cuda_dlopen_ok) {
    facts.set_absent("cuda.clean_env.init.result"_fact, src, "libcuda did not load");
  } else {
    facts.set_unknown("cuda.clean_env.init.result"_fact, not_reached_reason(summary, outcome), src);
  }
  if (reply.cuda_device_count) facts.set("cuda.clean_env.device_count"_fact, std::int64_t{*reply.cuda_device_count}, src);
}

void record_nvml_only_run(Host& host, const ProbeOptions& options, FactSet& facts) {
  // The first run's request without libcuda: NVML alone, where libcuda failed to load.
  HelperRequest request = first_helper_request(options);
  request.nvml_only = true;
  request.libcuda_path.clear();
  HelperOutcome outcome = host.run_cuda_helper(request);
  RunSummary summary = summarise(outcome);
  if (summary.reply) {
    record_nvml(*summary.reply, facts, not_reached_reason(summary, outcome));
  }
}

}  // namespace

HelperRequest first_helper_request(const ProbeOptions& options) {
  HelperRequest request;
  request.timeout_ms = options.cuda_timeout_ms;
  request.libcuda_path = options.libcuda_path;
  request.libnvml_path = options.libnvml_path;
  request.check_inforom = options.check_inforom;
  request.p2p_bandwidth = options.p2p_bandwidth;
  return request;
}

std::string cuda_version_text(int encoded) { return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10); }

void probe_cuda_driver(Host& host, const ProbeOptions& options, FactSet& facts) {
  if (!options.run_cuda_helper) {
    set_all_unknown(facts, "not checked (--no-cuda)");
    return;
  }
  HelperOutcome outcome = host.run_cuda_helper(first_helper_request(options));
  if (outcome.status == HelperOutcome::Status::not_run) {
    set_all_unknown(facts, outcome.error.empty() ? "helper not run" : outcome.error);
    return;
  }
  RunSummary summary = summarise(outcome);
  record_first_run(outcome, summary, options, facts);
  // CUDA hung or crashed before NVML was asked: ask NVML alone, so that "NVML sees the GPUs
  // but CUDA hangs" stays visible.
  if (summary.reply && !summary.reply->nvml_dlopen_ok &&
      (summary.status == "timeout" || summary.status == "crashed" || summary.status == "exit-failure")) {
    record_nvml_only_run(host, options, facts);
  }
  // A second run without the user's loader/visibility variables separates an environment
  // problem from a host problem.
  if (run_failed(summary) && summary.status != "no-glibc-loader" && summary.status != "exec-failed") {
    record_clean_run(host, options, facts);
  } else {
    set_no_clean_run(facts, std::string(k_src_helper),
                     run_failed(summary) ? "the helper could not start (" + summary.status + ")" : "the first run succeeded");
  }
}

}  // namespace gd
