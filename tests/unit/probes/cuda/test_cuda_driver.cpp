#include "probes/cuda/cuda_driver.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "probes/environment/environment.hpp"
#include "sys/recording_host.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::CapturedHelperRun;
using gd::FactSet;
using gd::FactState;
using gd::HelperOutcome;
using gd::ProbeOptions;
using Status = gd::HelperOutcome::Status;

namespace {

/// What one probe run gave: its facts, and the helper runs it asked the host for.
struct Probed {
  FactSet facts;
  std::vector<CapturedHelperRun> runs_asked;
};

/// Runs the environment probe (the clean-env decision reads its facts) and the CUDA probe
/// against a replayed capture.
Probed probe(Capture capture, ProbeOptions options = {}) {
  gd::ReplayHost replay(std::move(capture));
  Capture asked;
  gd::RecordingHost host(replay, asked);
  Probed out;
  gd::probe_environment(host, options, out.facts);
  gd::probe_cuda_driver(host, options, out.facts);
  out.runs_asked = asked.helper_runs;
  return out;
}

CapturedHelperRun helper_run(Status status, std::string reply, bool clean_env = false) {
  CapturedHelperRun run;
  run.request.clean_env = clean_env;
  run.outcome.status = status;
  run.outcome.reply = std::move(reply);
  run.outcome.duration_ms = 354;
  run.outcome.loader = "/lib64/ld-linux-x86-64.so.2";
  return run;
}

std::string lines(std::initializer_list<std::string_view> items) {
  std::string out;
  for (std::string_view item : items) {
    out += std::string(item) + "\n";
  }
  return out;
}

/// The reply a real H200 gave (tests/hosts/h200-live-580.159.04.capture.json).
std::string healthy_h200_reply() { return gd::test::host_capture("h200-live-580.159.04").helper_runs.at(0).outcome.reply; }

/// The healthy reply up to and including `last_line`: what a helper that hung or crashed right
/// after writing it leaves on the pipe.
std::string healthy_prefix(std::string_view last_line) {
  std::string reply = healthy_h200_reply();
  std::size_t at = reply.find(std::string(last_line) + "\n");
  REQUIRE(at != std::string::npos);
  return reply.substr(0, at + last_line.size() + 1);
}

// docs/helper-protocol.md: NVIDIA's toolkit stub first on the search path.
const std::string k_stub_reply = lines({
    "gpudoctor-helper\t1", "stage\tdlopen-cuda", "cuda.dlopen\tok", "cuda.path\t/usr/local/cuda-13.0/lib/stubs/libcuda.so",
    "stage\tcuDriverGetVersion", "cuda.driver_version.result\t34", "stage\tcuInit", "cuda.init.result\t34",
    "cuda.init.duration_us\t0", "stage\tdlopen-nvml", "nvml.dlopen\tfail",
    "nvml.dlerror\tlibnvidia-ml.so.1: cannot open shared object file: No such file or directory", "stage\tdone",
    "end\tok"});

// A container started without the NVIDIA runtime: no libcuda, no NVML.
const std::string k_no_libcuda_reply = lines({
    "gpudoctor-helper\t1", "stage\tdlopen-cuda", "cuda.dlopen\tfail",
    "cuda.dlerror\tlibcuda.so.1: cannot open shared object file: No such file or directory", "stage\tdlopen-nvml",
    "nvml.dlopen\tfail", "nvml.dlerror\tlibnvidia-ml.so.1: cannot open shared object file: No such file or directory",
    "stage\tdone", "end\tok"});

// An 8-GPU host with CUDA_VISIBLE_DEVICES=99: CUDA sees no device, NVML (which ignores the
// variable) sees all eight.
const std::string k_no_device_reply = lines({
    "gpudoctor-helper\t1", "stage\tdlopen-cuda", "cuda.dlopen\tok",
    "cuda.path\t/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", "stage\tcuDriverGetVersion",
    "cuda.driver_version.result\t0", "cuda.driver_version\t13000", "stage\tcuInit", "cuda.init.result\t100",
    "cuda.init.name\tCUDA_ERROR_NO_DEVICE", "cuda.init.text\tno CUDA-capable device is detected",
    "cuda.init.duration_us\t2150", "stage\tdlopen-nvml", "nvml.dlopen\tok",
    "nvml.path\t/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04", "stage\tnvmlInit", "nvml.init.result\t0",
    "nvml.init.text\tSuccess", "nvml.driver_version\t580.159.04", "nvml.device_count.result\t0", "nvml.device_count\t8",
    "stage\tdone", "end\tok"});

const gd::Fact& fact(const FactSet& facts, gd::FactName name) {
  const gd::Fact* found = facts.find(name);
  INFO("fact " << name.view());
  REQUIRE(found);
  return *found;
}

std::vector<std::string> list_of(const FactSet& facts, std::string_view name) {
  const gd::Fact& f = fact(facts, gd::FactName::unchecked(name));
  REQUIRE(f.state == FactState::present);
  return std::get<std::vector<std::string>>(f.value);
}

}  // namespace

TEST_CASE("cuda driver: a healthy H200", "[probes][cuda_driver]") {
  Probed run = probe(gd::test::host_capture("h200-live-580.159.04"));
  const FactSet& facts = run.facts;
  CHECK(facts.get_string("cuda.helper.status"_fact) == "ok");
  CHECK(facts.get_string("cuda.helper.stage"_fact) == "done");
  CHECK(facts.get_int("cuda.helper.duration_ms"_fact) == 354);
  CHECK(facts.get_string("cuda.helper.loader"_fact) == "/lib64/ld-linux-x86-64.so.2");
  CHECK(facts.get_bool("cuda.libcuda.loaded"_fact) == true);
  CHECK(facts.get_string("cuda.libcuda.path"_fact) == "/usr/local/nvidia/lib64/libcuda.so.580.159.04");
  CHECK(facts.get_bool("cuda.libcuda.is_stub"_fact) == false);
  CHECK(facts.get_int("cuda.driver_version"_fact) == 13000);
  CHECK(facts.get_string("cuda.driver_version.text"_fact) == "13.0");
  CHECK(facts.get_int("cuda.init.result"_fact) == 0);
  CHECK(facts.get_string("cuda.init.name"_fact) == "CUDA_SUCCESS");
  CHECK(facts.get_int("cuda.init.duration_ms"_fact) == 104);
  CHECK(facts.get_int("cuda.device_count"_fact) == 1);
  CHECK(facts.get_string("cuda.device.0.name"_fact) == "NVIDIA H200");
  CHECK(facts.get_string("cuda.device.0.compute_capability"_fact) == "9.0");
  CHECK(facts.get_int("cuda.device.0.total_memory_mib"_fact) == 143155);
  CHECK(facts.get_string("cuda.device.0.pci_bus_id"_fact) == "0000:00:06.0");
  CHECK(facts.get_int("cuda.device.0.context.result"_fact) == 0);
  CHECK(facts.get_int("cuda.context.failed_count"_fact) == 0);
  CHECK(facts.get_bool("nvml.loaded"_fact) == true);
  CHECK(facts.get_int("nvml.init.result"_fact) == 0);
  CHECK(facts.get_string("nvml.driver_version"_fact) == "580.159.04");
  CHECK(facts.get_int("nvml.device_count"_fact) == 1);
  CHECK(facts.get_string("nvml.device.0.pci_bus_id"_fact) == "00000000:00:06.0");
  CHECK(fact(facts, "cuda.init.result"_fact).source == "helper:cuInit");
  // The first run worked: no second one, even though LD_LIBRARY_PATH is set.
  CHECK(facts.get_bool("cuda.clean_env.ran"_fact) == false);
  CHECK(fact(facts, "cuda.clean_env.init.result"_fact).state == FactState::absent);
  CHECK(fact(facts, "cuda.clean_env.init.result"_fact).reason == "the first run succeeded");
  CHECK(run.runs_asked.size() == 1);
}

TEST_CASE("cuda driver: the toolkit stub libcuda", "[probes][cuda_driver]") {
  Capture c;
  c.helper_runs.push_back(helper_run(Status::finished, k_stub_reply));
  FactSet facts = probe(c).facts;
  CHECK(facts.get_string("cuda.helper.status"_fact) == "ok");
  CHECK(facts.get_bool("cuda.libcuda.is_stub"_fact) == true);
  CHECK(facts.get_int("cuda.init.result"_fact) == 34);
  CHECK(facts.get_string("cuda.init.name"_fact) == "CUDA_ERROR_STUB_LIBRARY");  // the stub cannot name it
  CHECK(facts.get_int("cuda.driver_version.result"_fact) == 34);
  CHECK(fact(facts, "cuda.driver_version"_fact).state == FactState::unknown);
  CHECK(fact(facts, "cuda.device_count"_fact).state == FactState::absent);
  CHECK(facts.get_bool("nvml.loaded"_fact) == false);
  CHECK(facts.get_string("nvml.dlerror"_fact) == "libnvidia-ml.so.1: cannot open shared object file: No such file or directory");
  CHECK(facts.get_bool("cuda.clean_env.ran"_fact) == false);
}

TEST_CASE("cuda driver: a helper that hangs in cuInit", "[probes][cuda_driver]") {
  Capture c;
  CapturedHelperRun hung = helper_run(Status::timed_out, healthy_prefix("stage\tcuInit"));
  hung.request.timeout_ms = 2000;
  c.helper_runs.push_back(hung);
  Probed run = probe(c);
  const FactSet& facts = run.facts;
  CHECK(facts.get_string("cuda.helper.status"_fact) == "timeout");
  CHECK(facts.get_string("cuda.helper.stage"_fact) == "cuInit");
  CHECK(facts.get_int("cuda.helper.timeout_ms"_fact) == 2000);  // the limit it ran under, from the capture
  CHECK(facts.get_int("cuda.driver_version"_fact) == 13000);    // written before the hang
  const gd::Fact& init = fact(facts, "cuda.init.result"_fact);
  CHECK(init.state == FactState::unknown);
  CHECK(init.reason == "helper hung in cuInit and was killed");
  // NVML was never reached; it is asked alone, and this capture has no such run.
  const gd::Fact& nvml = fact(facts, "nvml.loaded"_fact);
  CHECK(nvml.state == FactState::unknown);
  CHECK(nvml.reason == "helper hung in cuInit and was killed");
  REQUIRE(run.runs_asked.size() == 2);
  CHECK(run.runs_asked[1].request.nvml_only);
}

TEST_CASE("cuda driver: after a hang, NVML alone still reports the GPUs", "[probes][cuda_driver]") {
  Capture c;
  c.helper_runs.push_back(helper_run(Status::timed_out, healthy_prefix("stage\tcuInit")));
  CapturedHelperRun nvml = helper_run(Status::finished, lines({
      "gpudoctor-helper\t1", "stage\tdlopen-nvml", "nvml.dlopen\tok", "stage\tnvmlInit", "nvml.init.result\t0",
      "nvml.init.text\tSuccess", "nvml.driver_version\t580.159.04", "nvml.device_count.result\t0",
      "nvml.device_count\t8", "stage\tdone", "end\tok"}));
  nvml.request.nvml_only = true;
  c.helper_runs.push_back(nvml);
  FactSet facts = probe(c).facts;
  CHECK(facts.get_string("cuda.helper.status"_fact) == "timeout");
  CHECK(fact(facts, "cuda.init.result"_fact).state == FactState::unknown);
  CHECK(facts.get_bool("nvml.loaded"_fact) == true);
  CHECK(facts.get_int("nvml.device_count"_fact) == 8);
  CHECK(facts.get_string("nvml.driver_version"_fact) == "580.159.04");
}

TEST_CASE("cuda driver: a helper that crashes", "[probes][cuda_driver]") {
  Capture c;
  CapturedHelperRun crashed = helper_run(Status::crashed, healthy_prefix("stage\tcontext:0"));
  crashed.outcome.signal = 11;
  c.helper_runs.push_back(crashed);
  FactSet facts = probe(c).facts;
  CHECK(facts.get_string("cuda.helper.status"_fact) == "crashed");
  CHECK(facts.get_string("cuda.helper.signal"_fact) == "SIGSEGV");
  CHECK(facts.get_string("cuda.helper.stage"_fact) == "context:0");
  CHECK(facts.get_int("cuda.init.result"_fact) == 0);
  const gd::Fact& failed = fact(facts, "cuda.context.failed_count"_fact);
  CHECK(failed.state == FactState::unknown);
  CHECK(failed.reason == "helper crashed (SIGSEGV) in context:0");
}

TEST_CASE("cuda driver: libcuda does not load", "[probes][cuda_driver]") {
  Capture c;
  c.helper_runs.push_back(helper_run(Status::finished, k_no_libcuda_reply));
  FactSet facts = probe(c).facts;
  CHECK(facts.get_bool("cuda.libcuda.loaded"_fact) == false);
  CHECK(facts.get_string("cuda.libcuda.dlerror"_fact) ==
        "libcuda.so.1: cannot open shared object file: No such file or directory");
  for (gd::FactName name : {"cuda.init.result"_fact, "cuda.libcuda.path"_fact, "cuda.libcuda.is_stub"_fact, "cuda.device_count"_fact}) {
    CAPTURE(name);
    CHECK(fact(facts, name).state == FactState::absent);
  }
  CHECK(facts.get_bool("nvml.loaded"_fact) == false);
}

TEST_CASE("cuda driver: a failure the user's environment explains gets a clean second run", "[probes][cuda_driver]") {
  Capture c;
  c.env["CUDA_VISIBLE_DEVICES"] = "99";
  c.env["LD_LIBRARY_PATH"] = std::nullopt;
  c.helper_runs.push_back(helper_run(Status::finished, k_no_device_reply));
  c.helper_runs.push_back(helper_run(Status::finished, healthy_h200_reply(), true));
  Probed run = probe(c);
  const FactSet& facts = run.facts;
  CHECK(facts.get_int("cuda.init.result"_fact) == 100);
  CHECK(facts.get_string("cuda.init.name"_fact) == "CUDA_ERROR_NO_DEVICE");
  CHECK(facts.get_int("nvml.device_count"_fact) == 8);
  CHECK(facts.get_bool("cuda.clean_env.ran"_fact) == true);
  CHECK(facts.get_string("cuda.clean_env.status"_fact) == "ok");
  CHECK(facts.get_bool("cuda.clean_env.libcuda.loaded"_fact) == true);
  CHECK(facts.get_int("cuda.clean_env.init.result"_fact) == 0);
  CHECK(facts.get_int("cuda.clean_env.device_count"_fact) == 1);
  CHECK(list_of(facts, "cuda.clean_env.removed"_fact) == std::vector<std::string>{"CUDA_VISIBLE_DEVICES=99"});
  REQUIRE(run.runs_asked.size() == 2);
  CHECK(run.runs_asked[1].request.clean_env);
}

TEST_CASE("cuda driver: no second run when no variable is set", "[probes][cuda_driver]") {
  Capture c;
  c.env["CUDA_VISIBLE_DEVICES"] = std::nullopt;
  c.helper_runs.push_back(helper_run(Status::finished, k_no_device_reply));
  c.helper_runs.push_back(helper_run(Status::finished, healthy_h200_reply(), true));
  Probed run = probe(c);
  CHECK(run.facts.get_int("cuda.init.result"_fact) == 100);
  CHECK(run.facts.get_bool("cuda.clean_env.ran"_fact) == false);
  CHECK(fact(run.facts, "cuda.clean_env.init.result"_fact).state == FactState::absent);
  CHECK(fact(run.facts, "cuda.clean_env.removed"_fact).state == FactState::absent);
  CHECK(run.runs_asked.size() == 1);
}

TEST_CASE("cuda driver: a clean run the host cannot make is not claimed", "[probes][cuda_driver]") {
  Capture c;
  c.env["LD_PRELOAD"] = "/opt/vendor/libhook.so";
  c.helper_runs.push_back(helper_run(Status::finished, k_no_device_reply));  // no clean-env run recorded
  FactSet facts = probe(c).facts;
  CHECK(facts.get_bool("cuda.clean_env.ran"_fact) == false);
  const gd::Fact& init = fact(facts, "cuda.clean_env.init.result"_fact);
  CHECK(init.state == FactState::absent);
  CHECK(init.reason == "the capture holds no clean-env helper run");
}

TEST_CASE("cuda driver: --no-cuda runs nothing", "[probes][cuda_driver]") {
  ProbeOptions options;
  options.run_cuda_helper = false;
  Probed run = probe(gd::test::host_capture("h200-live-580.159.04"), options);
  CHECK(run.runs_asked.empty());
  for (gd::FactName name : {"cuda.helper.status"_fact, "cuda.libcuda.loaded"_fact, "cuda.init.result"_fact, "nvml.device_count"_fact}) {
    CAPTURE(name);
    const gd::Fact& f = fact(run.facts, name);
    CHECK(f.state == FactState::unknown);
    CHECK_THAT(f.reason, Catch::Contains("--no-cuda"));
  }
  CHECK(run.facts.get_bool("cuda.clean_env.ran"_fact) == false);
}

TEST_CASE("cuda driver: a helper that could not start", "[probes][cuda_driver]") {
  Capture c;
  c.env["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64";
  CapturedHelperRun musl = helper_run(Status::no_loader, "");
  musl.outcome.error = "no glibc dynamic loader (ld-linux-x86-64.so.2) on this host";
  c.helper_runs.push_back(musl);
  Probed run = probe(c);
  CHECK(run.facts.get_string("cuda.helper.status"_fact) == "no-glibc-loader");
  const gd::Fact& init = fact(run.facts, "cuda.init.result"_fact);
  CHECK(init.state == FactState::unknown);
  CHECK(init.reason == "no glibc dynamic loader (ld-linux-x86-64.so.2) on this host");
  CHECK(run.facts.get_bool("cuda.clean_env.ran"_fact) == false);  // a clean run would not start either
  CHECK(fact(run.facts, "cuda.clean_env.init.result"_fact).reason == "the helper could not start (no-glibc-loader)");
  CHECK(run.runs_asked.size() == 1);
}

TEST_CASE("cuda driver: the helper not run at all", "[probes][cuda_driver]") {
  FactSet facts = probe(Capture{}).facts;
  const gd::Fact& status = fact(facts, "cuda.helper.status"_fact);
  CHECK(status.state == FactState::unknown);
  CHECK(status.reason == "the capture holds no user-env helper run");
}

TEST_CASE("cuda driver: version text", "[probes][cuda_driver]") {
  CHECK(gd::cuda_version_text(13000) == "13.0");
  CHECK(gd::cuda_version_text(12040) == "12.4");
  CHECK(gd::cuda_version_text(11080) == "11.8");
}

TEST_CASE("cuda_driver: stage start times become a timeline of step durations", "[probes][cuda_driver]") {
  const std::string reply = lines({"gpudoctor-helper\t1", "stage\tdlopen-cuda", "stage.at_us\t100", "cuda.dlopen\tok",
                                   "stage\tcuInit", "stage.at_us\t35100", "cuda.init.result\t0",
                                   "stage\tcuDeviceGetCount", "stage.at_us\t152600", "cuda.device_count.result\t0",
                                   "cuda.device_count\t0", "stage\tdone", "stage.at_us\t153000", "end\tok"});
  Capture capture;
  capture.helper_runs.push_back(helper_run(Status::finished, reply));
  Probed p = probe(capture);
  const gd::Fact* timeline = p.facts.find("cuda.helper.timeline"_fact);
  REQUIRE(timeline != nullptr);
  CHECK(std::get<std::vector<std::string>>(timeline->value) ==
        std::vector<std::string>{"dlopen-cuda 35 ms", "cuInit 118 ms", "cuDeviceGetCount 0 ms"});
  CHECK(p.facts.get_int("cuda.helper.work_ms"_fact) == 153);
}

TEST_CASE("cuda_driver: a hang leaves the step it hung in unfinished in the timeline", "[probes][cuda_driver]") {
  const std::string reply =
      lines({"gpudoctor-helper\t1", "stage\tdlopen-cuda", "stage.at_us\t0", "cuda.dlopen\tok", "stage\tcuInit", "stage.at_us\t40000"});
  Capture capture;
  capture.helper_runs.push_back(helper_run(Status::timed_out, reply));
  Probed p = probe(capture);
  const gd::Fact* timeline = p.facts.find("cuda.helper.timeline"_fact);
  REQUIRE(timeline != nullptr);
  CHECK(std::get<std::vector<std::string>>(timeline->value) ==
        std::vector<std::string>{"dlopen-cuda 40 ms", "cuInit (did not finish)"});
  CHECK(p.facts.find("cuda.helper.work_ms"_fact) == nullptr);
}

TEST_CASE("cuda_driver: a GPU stuck after a cuInit that took most of the deadline is undecided",
          "[probes][cuda_driver]") {
  // tests/hosts/fake-eight-one-stuck: timeout 3000 ms, the helper's deadline 2700 ms, the GPUs'
  // threads started at 0.357 ms; GPU 2 never returns from its context.
  Capture capture = gd::test::host_capture("fake-eight-one-stuck");
  SECTION("the GPUs had the whole deadline: stuck") {
    Probed p = probe(capture);
    CHECK(p.facts.get_int("cuda.devices.stuck_count"_fact) == 1);
    CHECK(p.facts.get_int("cuda.devices.stuck_with_time"_fact) == 1);
  }
  SECTION("cuInit ended 2.0 s into the 2.7 s deadline: too little time to call it stuck") {
    std::string& reply = capture.helper_runs.at(0).outcome.reply;
    const std::string started = "stage\tdevices\nstage.at_us\t357\n";
    REQUIRE(reply.find(started) != std::string::npos);
    reply.replace(reply.find(started), started.size(), "stage\tdevices\nstage.at_us\t2000000\n");
    Probed p = probe(capture);
    CHECK(p.facts.get_int("cuda.devices.stuck_count"_fact) == 1);
    const gd::Fact& judged = fact(p.facts, "cuda.devices.stuck_with_time"_fact);
    CHECK(judged.state == FactState::unknown);
    CHECK(judged.reason.find("the GPUs had 700 ms of the helper's 2700 ms deadline") != std::string::npos);
  }
}

}  // namespace GD_UNITY_ID
