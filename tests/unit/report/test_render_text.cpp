#include "report/render_text.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "util/text_codec.hpp"

using gd::AreaLine;
using gd::AreaStatus;
using gd::Finding;
using gd::Report;
using gd::Severity;
using gd::TextStyle;

namespace {

/// A report on a healthy H200, the way `gpudoctor` run as root builds it.
Report healthy_report() {
  Report r;
  r.run = gd::RunInfo{"0.1.0", "live", "/", 812, 0, "gpu-node-17", "all"};
  r.facts.set("kmod.nvidia.version", std::string("580.159.04"), "/proc/driver/nvidia/version");
  r.facts.set("cuda.init.result", std::int64_t{0}, "helper:cuInit");
  r.areas = {
      AreaLine{"driver", "NVIDIA kernel module", AreaStatus::ok, "open 580.159.04", {}},
      AreaLine{"cuda", "CUDA driver (libcuda)", AreaStatus::ok,
               "CUDA 13.0 from /usr/local/nvidia/lib64/libcuda.so.580.159.04; cuInit OK in 104 ms; 1 device",
               {"GPU 0: NVIDIA H200 · sm_90 · 139.8 GiB · 0000:00:06.0 · context + allocation OK"}},
  };
  return r;
}

Finding hidden_gpus() {
  Finding f;
  f.id = "cuda/visible-devices-hides-all";
  f.severity = Severity::error;
  f.area = "cuda";
  f.scope = gd::Scope::environment;
  f.action = gd::Action::fix_environment;
  f.title = "CUDA_VISIBLE_DEVICES hides every GPU";
  f.message = "CUDA_VISIBLE_DEVICES=99 names no GPU on this host, while NVML sees 8.";
  f.why = "CUDA only enumerates the devices the variable lists.";
  f.fix = {"unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0,1\n# or list GPUs by UUID"};
  f.references = {"https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"};
  f.evidence = {{"env.cuda_visible_devices", "99", "env:CUDA_VISIBLE_DEVICES"}, {"cuda.init.result", "100", "helper:cuInit"}};
  return f;
}

/// A report with one error finding, one unknown fact and one rule that could not decide.
Report failing_report() {
  Report r = healthy_report();
  r.run.uid = 1000;
  r.facts.set("cuda.init.result", std::int64_t{100}, "helper:cuInit");
  r.facts.set("cuda.helper.stderr", std::string("first line\nsecond line"), "helper:stderr");
  r.facts.set_unknown("nvml.init.result", "needs root", "helper:nvmlInit");
  r.areas[1] = AreaLine{"cuda", "CUDA driver (libcuda)", AreaStatus::error, "cuInit failed: 100 CUDA_ERROR_NO_DEVICE", {}};
  r.findings = {hidden_gpus()};
  r.inconclusive = {gd::Inconclusive{"driver/module-too-old", "Kernel module older than libcuda",
                                     {{"kmod.nvidia.version", "unknown (needs root)", "/proc/driver/nvidia/version"}}}};
  return r;
}

bool has_escape(const std::string& text) { return text.find('\033') != std::string::npos; }

}  // namespace

TEST_CASE("text report: a healthy host, exactly", "[report][render_text]") {
  CHECK(gd::render_text(healthy_report(), TextStyle{}) ==
        "gpudoctor 0.1.0 — this host, as root\n"
        "\n"
        "[ok] NVIDIA kernel module: open 580.159.04\n"
        "[ok] CUDA driver (libcuda): CUDA 13.0 from /usr/local/nvidia/lib64/libcuda.so.580.159.04; cuInit OK in 104 ms; "
        "1 device\n"
        "    • GPU 0: NVIDIA H200 · sm_90 · 139.8 GiB · 0000:00:06.0 · context + allocation OK\n"
        "\n"
        "No problems found.\n");
}

TEST_CASE("text report: a finding with its fix and evidence", "[report][render_text]") {
  std::string text = gd::render_text(failing_report(), TextStyle{});
  CHECK_THAT(text, Catch::StartsWith("gpudoctor 0.1.0 — this host, as uid 1000\n"));
  CHECK_THAT(text, Catch::Contains("[X] CUDA driver (libcuda): cuInit failed: 100 CUDA_ERROR_NO_DEVICE\n"));
  CHECK_THAT(text, Catch::Contains("error [cuda/visible-devices-hides-all] CUDA_VISIBLE_DEVICES hides every GPU\n"
                                   "    CUDA_VISIBLE_DEVICES=99 names no GPU on this host, while NVML sees 8.\n"
                                   "    Why: CUDA only enumerates the devices the variable lists.\n"
                                   "    Fix (this environment's problem, not the node's; action: fix-environment):\n"
                                   "      1. unset CUDA_VISIBLE_DEVICES\n"
                                   "      2. export CUDA_VISIBLE_DEVICES=0,1\n"
                                   "         # or list GPUs by UUID\n"
                                   "    Evidence:\n"
                                   "      env.cuda_visible_devices = 99  (env:CUDA_VISIBLE_DEVICES)\n"
                                   "      cuda.init.result = 100  (helper:cuInit)\n"
                                   "    See: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars\n"));
  CHECK_THAT(text, Catch::Contains("1 check could not decide (-v shows the facts):\n"
                                   "  ? needs root: driver/module-too-old\n"));
  CHECK_THAT(text, Catch::EndsWith("Found 1 error and 0 warnings. The first finding is the most likely cause.\n"));
  CHECK_THAT(text, !Catch::Contains("No problems found."));
  CHECK_THAT(text, !Catch::Contains("Facts ("));  // only with -v
}

TEST_CASE("text report: a node's finding says so, with its action", "[report][render_text]") {
  Report r = failing_report();
  r.findings[0].scope = gd::Scope::node;
  r.findings[0].action = gd::Action::reset_gpu;
  CHECK_THAT(gd::render_text(r, TextStyle{}), Catch::Contains("    Fix (the node's problem; action: reset-gpu):\n      1. "));
}

TEST_CASE("text report: the summary line counts errors and warnings", "[report][render_text]") {
  Report r = healthy_report();
  Finding note = hidden_gpus();
  note.severity = Severity::info;
  r.findings = {note};
  CHECK_THAT(gd::render_text(r, TextStyle{}), Catch::EndsWith("No problems found. (1 note)\n"));
  Finding warning = hidden_gpus();
  warning.severity = Severity::warning;
  r.findings = {warning, warning};
  CHECK_THAT(gd::render_text(r, TextStyle{}), Catch::EndsWith("Found 0 errors and 2 warnings. The first finding is the most likely cause.\n"));
}

TEST_CASE("text report: inconclusive checks are grouped by reason", "[report][render_text]") {
  Report r = healthy_report();
  auto unknown = [](std::string id, std::string fact, std::string value) {
    return gd::Inconclusive{std::move(id), "title", {{std::move(fact), std::move(value), "helper"}}};
  };
  r.inconclusive = {unknown("cuda/stub-libcuda", "cuda.libcuda.is_stub", "unknown (not checked (--no-cuda))"),
                    unknown("driver/module-too-old", "kmod.nvidia.version", "unknown (needs root)"),
                    unknown("cuda/no-device", "cuda.init.result", "unknown (not checked (--no-cuda))")};
  CHECK_THAT(gd::render_text(r, TextStyle{}), Catch::Contains("3 checks could not decide (-v shows the facts):\n"
                                                              "  ? not checked (--no-cuda): cuda/stub-libcuda, cuda/no-device\n"
                                                              "  ? needs root: driver/module-too-old\n\n"));
}

TEST_CASE("text report: no ANSI escapes without colour", "[report][render_text]") {
  TextStyle plain;
  plain.verbose = true;
  CHECK_FALSE(has_escape(gd::render_text(failing_report(), plain)));
  CHECK_FALSE(has_escape(gd::render_text(healthy_report(), plain)));
}

TEST_CASE("text report: colours on a terminal", "[report][render_text]") {
  TextStyle color;
  color.color = true;
  std::string healthy = gd::render_text(healthy_report(), color);
  CHECK(has_escape(healthy));
  CHECK_THAT(healthy, Catch::Contains("\033[32m[ok]\033[0m NVIDIA kernel module"));
  std::string failing = gd::render_text(failing_report(), color);
  CHECK_THAT(failing, Catch::Contains("\033[31m[X]\033[0m CUDA driver"));
  CHECK_THAT(failing, Catch::Contains("\033[31m\033[1merror\033[0m [cuda/visible-devices-hides-all]"));
}

TEST_CASE("text report: unicode marks", "[report][render_text]") {
  TextStyle unicode;
  unicode.unicode = true;
  CHECK_THAT(gd::render_text(healthy_report(), unicode), Catch::Contains("[✓] NVIDIA kernel module"));
  CHECK_THAT(gd::render_text(failing_report(), unicode), Catch::Contains("[✗] CUDA driver"));
}

TEST_CASE("text report: -v lists every fact on one line each", "[report][render_text]") {
  TextStyle verbose;
  verbose.verbose = true;
  std::string text = gd::render_text(failing_report(), verbose);
  CHECK_THAT(text, Catch::Contains("Facts (4):\n"
                                   "  cuda.helper.stderr = first line second line  (helper:stderr)\n"
                                   "  cuda.init.result = 100  (helper:cuInit)\n"
                                   "  kmod.nvidia.version = 580.159.04  (/proc/driver/nvidia/version)\n"
                                   "  nvml.init.result = unknown (needs root)  (helper:nvmlInit)\n"));
}

TEST_CASE("text report: what was examined", "[report][render_text]") {
  Report r = healthy_report();
  r.run = gd::RunInfo{"0.1.0", "replay", "tests/hosts/h200-live-580.159.04.capture.json", 3, -1, "", "all"};
  CHECK_THAT(gd::render_text(r, TextStyle{}),
             Catch::StartsWith("gpudoctor 0.1.0 — the capture tests/hosts/h200-live-580.159.04.capture.json\n\n"));
  r.run = gd::RunInfo{"0.1.0", "root", "/srv/rootfs", 3, 0, "", "all"};
  CHECK_THAT(gd::render_text(r, TextStyle{}), Catch::StartsWith("gpudoctor 0.1.0 — the folder /srv/rootfs, as root\n\n"));
}

TEST_CASE("text report: long values are cut between characters, not inside one", "[report][render_text]") {
  Report r = failing_report();
  // "·" (2 bytes) straddles the evidence bound, "✓" (3 bytes) the fact bound.
  r.findings[0].evidence = {{"cuda.libcuda.path", std::string(299, 'x') + "·tail", "helper:dladdr"}};
  r.facts.set("cuda.helper.stdout", std::string(399, 'y') + "✓tail", "helper:stdout");
  TextStyle verbose;
  verbose.verbose = true;
  std::string text = gd::render_text(r, verbose);
  CHECK(gd::is_valid_utf8(text));
  CHECK_THAT(text, Catch::Contains("cuda.libcuda.path = " + std::string(299, 'x') + "…  (helper:dladdr)\n"));
  CHECK_THAT(text, Catch::Contains("cuda.helper.stdout = " + std::string(399, 'y') + "…  (helper:stdout)\n"));
  r.findings[0].evidence = {{"cuda.libcuda.path", std::string(300, 'x'), "helper:dladdr"}};  // fits exactly
  CHECK_THAT(gd::render_text(r, verbose), Catch::Contains(" = " + std::string(300, 'x') + "  (helper:dladdr)\n"));
}
