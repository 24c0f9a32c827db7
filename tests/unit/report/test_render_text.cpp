#include "report/render_text.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "rules/embedded_rules.hpp"
#include "core/fact_key.hpp"
#include "util/terminal_text.hpp"
#include "util/text_codec.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

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
  r.run = gd::RunInfo{"0.1.0", gd::RunMode::live, "/", 812, 0, "gpu-node-17", gd::RunScope::all};
  r.facts.set("kmod.nvidia.version"_fact, std::string("580.159.04"), "/proc/driver/nvidia/version");
  r.facts.set("cuda.init.result"_fact, std::int64_t{0}, "helper:cuInit");
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
  f.evidence = {{"env.cuda_visible_devices"_fact, "99", "env:CUDA_VISIBLE_DEVICES"}, {"cuda.init.result"_fact, "100", "helper:cuInit"}};
  return f;
}

/// A report with one error finding, one unknown fact and one rule that could not decide.
Report failing_report() {
  Report r = healthy_report();
  r.run.uid = 1000;
  r.facts.set("cuda.init.result"_fact, std::int64_t{100}, "helper:cuInit");
  r.facts.set("cuda.helper.stderr"_fact, std::string("first line\nsecond line"), "helper:stderr");
  r.facts.set_unknown("nvml.init.result"_fact, "needs root", "helper:nvmlInit");
  r.areas[1] = AreaLine{"cuda", "CUDA driver (libcuda)", AreaStatus::error, "cuInit failed: 100 CUDA_ERROR_NO_DEVICE", {}};
  r.findings = {hidden_gpus()};
  r.inconclusive = {gd::Inconclusive{"driver/module-too-old", "Kernel module older than libcuda",
                                     {{"kmod.nvidia.version"_fact, "unknown (needs root)", "/proc/driver/nvidia/version"}}}};
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
                                   // A newline in a step came from a filled-in value: shown, not obeyed.
                                   "      2. export CUDA_VISIBLE_DEVICES=0,1\\n# or list GPUs by UUID\n"
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
  r.inconclusive = {unknown("cuda/stub-libcuda", "cuda.libcuda.is_stub"_fact, "unknown (not checked (--no-cuda))"),
                    unknown("driver/module-too-old", "kmod.nvidia.version"_fact, "unknown (needs root)"),
                    unknown("cuda/no-device", "cuda.init.result"_fact, "unknown (not checked (--no-cuda))")};
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
                                   "  cuda.helper.stderr = first line\\nsecond line  (helper:stderr)\n"
                                   "  cuda.init.result = 100  (helper:cuInit)\n"
                                   "  kmod.nvidia.version = 580.159.04  (/proc/driver/nvidia/version)\n"
                                   "  nvml.init.result = unknown (needs root)  (helper:nvmlInit)\n"));
}

TEST_CASE("text report: what was examined", "[report][render_text]") {
  Report r = healthy_report();
  r.run = gd::RunInfo{"0.1.0", gd::RunMode::replay, "tests/hosts/h200-live-580.159.04.capture.json", 3, -1, "", gd::RunScope::all};
  CHECK_THAT(gd::render_text(r, TextStyle{}),
             Catch::StartsWith("gpudoctor 0.1.0 — the capture tests/hosts/h200-live-580.159.04.capture.json\n\n"));
  r.run = gd::RunInfo{"0.1.0", gd::RunMode::root, "/srv/rootfs", 3, 0, "", gd::RunScope::all};
  CHECK_THAT(gd::render_text(r, TextStyle{}), Catch::StartsWith("gpudoctor 0.1.0 — the folder /srv/rootfs, as root\n\n"));
}

TEST_CASE("text report: long values are cut between characters, not inside one", "[report][render_text]") {
  Report r = failing_report();
  // "·" (2 bytes) straddles the evidence bound, "✓" (3 bytes) the fact bound.
  r.findings[0].evidence = {{"cuda.libcuda.path"_fact, std::string(299, 'x') + "·tail", "helper:dladdr"}};
  r.facts.set("cuda.helper.stdout"_fact, std::string(399, 'y') + "✓tail", "helper:stdout");
  TextStyle verbose;
  verbose.verbose = true;
  std::string text = gd::render_text(r, verbose);
  CHECK(gd::is_valid_utf8(text));
  CHECK_THAT(text, Catch::Contains("cuda.libcuda.path = " + std::string(299, 'x') + "…  (helper:dladdr)\n"));
  CHECK_THAT(text, Catch::Contains("cuda.helper.stdout = " + std::string(399, 'y') + "…  (helper:stdout)\n"));
  r.findings[0].evidence = {{"cuda.libcuda.path"_fact, std::string(300, 'x'), "helper:dladdr"}};  // fits exactly
  CHECK_THAT(gd::render_text(r, verbose), Catch::Contains(" = " + std::string(300, 'x') + "  (helper:dladdr)\n"));
}

namespace {

// What a folder name, a variable or libcuda can hold: an OSC title ended by BEL, a CSI colour, a
// C1 CSI (U+009B), a right-to-left override (U+202E), and a newline that starts a forged line.
const std::string k_hostile = "\x1b]0;pwned\x07\x1b[31m\xC2\x9B" "32m\xE2\x80\xAE\n[ok] Everything is fine";
const std::string k_shown = "\\x1b]0;pwned\\x07\\x1b[31mU+009B32mU+202E\\n[ok] Everything is fine";

Report hostile_report() {
  Report r = failing_report();
  r.run.mode = gd::RunMode::root;
  r.run.source = "/srv/image" + k_hostile;
  r.facts.set("env.ld_library_path"_fact, "/usr/local/nvidia/lib64" + k_hostile, "env:LD_LIBRARY_PATH");
  r.areas[1].summary = "cuInit failed: 999 CUDA_ERROR_UNKNOWN (libcuda /opt/lib" + k_hostile + ")";
  r.areas[1].details = {"GPU 0: NVIDIA H200" + k_hostile};
  Finding& f = r.findings[0];
  f.message = "CUDA_VISIBLE_DEVICES=" + k_hostile + " names no GPU on this host.";
  f.confirmed = false;
  f.unconfirmed = "CUDA gave no answer (" + k_hostile + ")";
  f.fix = {"export CUDA_VISIBLE_DEVICES=0 # was " + k_hostile};
  f.evidence = {{"env.cuda_visible_devices"_fact, k_hostile, "/opt/venv" + k_hostile + "/pyvenv.cfg"}};
  r.inconclusive[0].unknown_facts[0].value = "unknown (cannot read /opt/venv" + k_hostile + ")";
  return r;
}

/// No byte a terminal obeys but the newlines (and, with colour, the palette's own sequences).
bool terminal_clean(std::string text, bool colour) {
  if (colour) {
    for (std::string own : {"\033[0m", "\033[1m", "\033[2m", "\033[31m", "\033[32m", "\033[33m", "\033[34m"}) {
      for (auto at = text.find(own); at != std::string::npos; at = text.find(own)) text.erase(at, own.size());
    }
  }
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
  }
  return gd::is_valid_utf8(text) && text.find("\xC2\x9B") == std::string::npos &&
         text.find("\xE2\x80\xAE") == std::string::npos && text.find("\n[ok] Everything") == std::string::npos;
}

}  // namespace

TEST_CASE("text report: host strings are shown escaped, never written", "[report][render_text]") {
  TextStyle verbose;
  verbose.verbose = true;
  std::string text = gd::render_text(hostile_report(), verbose);
  CHECK(terminal_clean(text, false));
  CHECK_THAT(text, Catch::StartsWith("gpudoctor 0.1.0 — the folder /srv/image" + k_shown + ", as uid 1000\n\n"));
  CHECK_THAT(text, Catch::Contains("[X] CUDA driver (libcuda): cuInit failed: 999 CUDA_ERROR_UNKNOWN (libcuda /opt/lib" +
                                   k_shown + ")\n    • GPU 0: NVIDIA H200" + k_shown + "\n"));
  CHECK_THAT(text, Catch::Contains("    CUDA_VISIBLE_DEVICES=" + k_shown + " names no GPU on this host.\n"
                                   "    Not confirmed: CUDA gave no answer (" + k_shown + ").\n"));
  CHECK_THAT(text, Catch::Contains("      1. export CUDA_VISIBLE_DEVICES=0 # was " + k_shown + "\n"));
  CHECK_THAT(text, Catch::Contains("      env.cuda_visible_devices = " + k_shown + "  (/opt/venv" + k_shown + "/pyvenv.cfg)\n"));
  CHECK_THAT(text, Catch::Contains("  env.ld_library_path = /usr/local/nvidia/lib64" + k_shown + "  (env:LD_LIBRARY_PATH)\n"));
  CHECK_THAT(text, Catch::Contains("  ? cannot read /opt/venv" + k_shown + ": driver/module-too-old\n"));
  // The renderer's own newlines and layout are untouched.
  CHECK_THAT(text, Catch::EndsWith("\n\nFound 1 error and 0 warnings. None is confirmed by CUDA. The first finding is "
                                   "the most likely cause.\n"));
}

TEST_CASE("text report: with colours, only the renderer's own escape sequences", "[report][render_text]") {
  TextStyle color;
  color.color = true;
  std::string text = gd::render_text(hostile_report(), color);
  CHECK(has_escape(text));
  CHECK(terminal_clean(text, true));
  CHECK_THAT(text, Catch::Contains("\033[31m[X]\033[0m CUDA driver (libcuda): cuInit failed"));
  CHECK_THAT(text, Catch::Contains("GPU 0: NVIDIA H200" + k_shown + "\n"));
}

TEST_CASE("text report: the rules' own texts hold nothing the renderer would escape", "[report][render_text]") {
  // The renderer escapes whole texts (a rule's with its placeholders filled): that is right only
  // while no rule writes a newline, a control or a bidi character of its own.
  gd::RuleLoadResult loaded = gd::load_embedded_rules();
  REQUIRE(loaded.errors.empty());
  REQUIRE(loaded.rules.size() > 100);
  for (const gd::Rule& rule : loaded.rules) {
    INFO(rule.id);
    CHECK(gd::terminal_safe(rule.title) == rule.title);
    CHECK(gd::terminal_safe(rule.message) == rule.message);
    CHECK(gd::terminal_safe(rule.why) == rule.why);
    for (const std::string& step : rule.fix) CHECK(gd::terminal_safe(step) == step);
    for (const std::string& reference : rule.references) CHECK(gd::terminal_safe(reference) == reference);
  }
}

}  // namespace GD_UNITY_ID
