// --format markdown (src/report/render_markdown.cpp): the structure, the escaping of host values,
// and the size limit of a GitHub comment. tests/e2e/test_markdown_report.sh renders real reports
// with a Markdown parser.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "core/fact_key.hpp"
#include "report/markdown_text.hpp"
#include "report/render_markdown.hpp"
#include "util/text_codec.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::AreaLine;
using gd::AreaStatus;
using gd::Finding;
using gd::Report;
using gd::Severity;

namespace {

Report small_report() {
  Report r;
  r.run = gd::RunInfo{"0.1.0", gd::RunMode::live, "/", 812, 0, "gpu-node-17", gd::RunScope::all};
  r.facts.set("kmod.nvidia.version"_fact, std::string("580.159.04"), "/proc/driver/nvidia/version");
  r.facts.set("cuda.init.result"_fact, std::int64_t{999}, "helper:cuInit");
  r.facts.set_unknown("klog.xid_codes"_fact, "needs root", "/dev/kmsg");
  r.areas = {AreaLine{"driver", "NVIDIA kernel module", AreaStatus::ok, "open 580.159.04", {}},
             AreaLine{"cuda", "CUDA driver (libcuda)", AreaStatus::error, "cuInit failed: 999",
                      {"GPU 0: NVIDIA H200", "GPU 1: NVIDIA H200"}}};
  Finding f;
  f.id = "devices.uvm-wrong-major";
  f.severity = Severity::error;
  f.area = "devices";
  f.action = gd::Action::fix_config;
  f.title = "/dev/nvidia-uvm does not lead to the nvidia-uvm driver";
  f.message = "/dev/nvidia-uvm is character device 1:3, but the driver has major 238.";
  f.why = "The nvidia-uvm major is allocated when the module loads.";
  f.fix = {"sudo rm /dev/nvidia-uvm && sudo nvidia-modprobe -c 0 -u", "lxc.cgroup2.devices.allow: c 238:* rwm"};
  f.references = {"https://docs.nvidia.com/x.html", "kernel-open/nvidia-uvm/uvm.c"};
  f.evidence = {{"cuda.init.result"_fact, "999", "helper:cuInit"}};
  f.consequences = {"cuda.init-failed"};
  r.findings = {f};
  r.inconclusive = {{"klog.xid-79", "A GPU fell off the bus", {{"klog.xid_codes"_fact, "unknown (needs root)", "/dev/kmsg"}}}};
  return r;
}

bool has(const std::string& text, std::string_view piece) { return text.find(piece) != std::string::npos; }

}  // namespace

TEST_CASE("markdown report: verdict, overview table, finding, folded detail", "[report][render_markdown]") {
  std::string out = gd::render_markdown(small_report());
  CHECK(out.starts_with("## ❌ gpudoctor: 1 error, 0 warnings\n\n"));
  CHECK(has(out, "**Most likely cause:** /dev/nvidia-uvm does not lead to the nvidia-uvm driver (`devices.uvm-wrong-major`)"));
  CHECK(has(out, "gpudoctor 0.1.0 · this host · host `gpu-node-17` · as root\n"));
  CHECK(has(out, "| | Layer | Summary |\n|:--|:--|:--|\n"));
  CHECK(has(out, "| ✅ ok | NVIDIA kernel module | open 580.159.04 |\n"));
  CHECK(has(out, "| ❌ error | CUDA driver (libcuda) | cuInit failed: 999<br>• GPU 0: NVIDIA H200<br>• GPU 1: NVIDIA H200 |\n"));
  CHECK(has(out, "#### ❌ error: /dev/nvidia-uvm does not lead to the nvidia-uvm driver\n\n"
                 "`devices.uvm-wrong-major` · area `devices` · the node's problem · action `fix-config`\n\n"));
  CHECK(has(out, "**Why:** The nvidia-uvm major is allocated when the module loads.\n"));
  CHECK(has(out, "**Fix** (2 steps):\n\n**Step 1**\n\n```\nsudo rm /dev/nvidia-uvm && sudo nvidia-modprobe -c 0 -u\n```\n"));
  CHECK(has(out, "**Step 2**\n\n```\nlxc.cgroup2.devices.allow: c 238:* rwm\n```\n"));
  CHECK(has(out, "**Also explains:** `cuda.init-failed`"));
  CHECK(has(out, "**Evidence:**\n\n```\ncuda.init.result = 999  (helper:cuInit)\n```\n"));
  CHECK(has(out, "**See:** <https://docs.nvidia.com/x.html>, `kernel-open/nvidia-uvm/uvm.c`"));
  CHECK(has(out, "<details><summary>1 check that could not decide (and the unknown facts each needs)</summary>\n\n"
                 "```\nklog.xid-79  A GPU fell off the bus\n    klog.xid_codes = unknown (needs root)  (/dev/kmsg)\n```\n\n</details>\n"));
  CHECK(has(out, "<details><summary>Facts: <code>kmod.*</code> (1)</summary>\n\n"
                 "```\nkmod.nvidia.version = 580.159.04  (/proc/driver/nvidia/version)\n```\n\n</details>\n"));
  CHECK(has(out, "<details><summary>Facts: <code>klog.*</code> (1)</summary>"));
  CHECK(!has(out, "Shortened to fit"));  // everything fitted: nothing is said to be left out
}

TEST_CASE("markdown report: a healthy host, and --scope node", "[report][render_markdown]") {
  Report r = small_report();
  // Healthy: no finding, every layer checked and fine (a [X] CUDA line or an undecided check would
  // make it "no problem confirmed", the next case).
  r.findings.clear();
  r.inconclusive.clear();
  r.areas[1] = AreaLine{"cuda", "CUDA driver (libcuda)", AreaStatus::ok, "cuInit OK", {}};
  CHECK(gd::render_markdown(r).starts_with("## ✅ gpudoctor: no problems found\n\n"));
  CHECK(!has(gd::render_markdown(r), "### Findings"));
  r.run.scope = gd::RunScope::node;
  r.left_out = {"python.torch-cuda-mismatch"};
  std::string out = gd::render_markdown(r);
  CHECK(out.starts_with("## ✅ gpudoctor: no node problems found\n\n"));
  CHECK(has(out, " · `--scope node`\n"));
  CHECK(has(out, "**Left out by `--scope node`** (this environment's problems, not the node's): `python.torch-cuda-mismatch`"));
}

TEST_CASE("markdown report: host values cannot open Markdown or HTML", "[report][render_markdown]") {
  Report r = small_report();
  r.areas[0].summary = "a|b `c` <img src=x> *d* \n# e";
  r.findings[0].title = "x | y #";
  r.findings[0].message = "LD_LIBRARY_PATH=/a|/b</p>";
  r.findings[0].fix = {"echo ```\n</details>\nexit"};
  r.findings[0].evidence = {{"env.ld_library_path"_fact, "/a\n```|b", "env:LD_LIBRARY_PATH"}};
  r.facts.set("kmod.nvidia.version"_fact, std::string("5\n```\n</details>\n<b>x"), "/proc/driver/nvidia/version");
  std::string out = gd::render_markdown(r);
  CHECK(has(out, "| ✅ ok | NVIDIA kernel module | a&#124;b \\`c\\` &lt;img src=x&gt; \\*d\\* <br># e |\n"));
  CHECK(has(out, "#### ❌ error: x &#124; y \\#\n"));
  CHECK(has(out, "\nLD\\_LIBRARY\\_PATH=/a&#124;/b&lt;/p&gt;\n"));
  CHECK(has(out, "````\necho ```\n</details>\nexit\n````\n"));
  // The value holds a run of three backticks: the block is fenced by four.
  CHECK(has(out, "````\nenv.ld_library_path = /a\\n```|b  (env:LD_LIBRARY_PATH)\n````\n"));
  CHECK(has(out, "````\nkmod.nvidia.version = 5\\n```\\n</details>\\n<b>x  (/proc/driver/nvidia/version)\n````\n"));
  CHECK(!has(out, "<img"));
  CHECK(gd::is_valid_utf8(out));
  r.facts.set("kmod.nvidia.version"_fact, std::string("bad \xff byte"), "/proc/driver/nvidia/version");
  CHECK(gd::is_valid_utf8(gd::render_markdown(r)));
}

namespace {

// A host far beyond one comment: 256 GPUs with long per-GPU facts nobody cites (cuda.*), a
// cited group (pci.*: the findings' evidence) of about 30 KB, and many findings.
Report large_report(std::size_t findings) {
  Report r = small_report();
  for (int i = 0; i < 256; ++i) {
    r.facts.set(gd::FactName::unchecked(fmt::format("cuda.device.{}.name", i)), std::string(300, 'n'), "helper:cuDeviceGetName");
    r.facts.set(gd::FactName::unchecked(fmt::format("pci.gpu.{}.bus_id", i)), fmt::format("0000:{:02x}:00.0 {}", i, std::string(80, 'p')),
                "/sys/bus/pci/devices");
  }
  r.findings.clear();
  for (std::size_t i = 0; i < findings; ++i) {
    Finding f = small_report().findings[0];
    f.id = fmt::format("site.check-{}", i);
    f.severity = i < 3 ? Severity::error : Severity::warning;
    f.why = std::string(1500, 'w');
    f.evidence = {{"pci.gpu.0.bus_id"_fact, "0000:00:00.0", "/sys/bus/pci/devices"}};
    r.findings.push_back(f);
  }
  return r;
}

}  // namespace

TEST_CASE("markdown report: a large host stays under the limit, leaving out the least important first",
          "[report][render_markdown]") {
  Report r = large_report(8);
  std::string out = gd::render_markdown(r);
  CHECK(out.size() <= gd::k_markdown_max_bytes);
  CHECK(out.size() < 65'536);
  // The uncited per-GPU facts left, and the note says so and where to get them.
  CHECK(has(out, "> **Shortened to fit one GitHub comment** (65,536 characters). Left out: the facts of `cuda.*` (257)."));
  CHECK(has(out, "`gpudoctor --json --no-capture` has all of it"));
  CHECK(!has(out, "Facts: <code>cuda.*</code>"));
  // What fitted stayed whole: the cited facts, the other groups, every finding's evidence.
  CHECK(has(out, "Facts: <code>pci.*</code> (256)"));
  CHECK(has(out, "Facts: <code>kmod.*</code> (1)"));
  CHECK(has(out, "**Evidence:**\n\n```\npci.gpu.0.bus_id = 0000:00:00.0  (/sys/bus/pci/devices)\n```\n\n**See:**"));
  CHECK(has(out, "#### ⚠️ warning: /dev/nvidia-uvm does not lead to the nvidia-uvm driver\n\n`site.check-7`"));
}

TEST_CASE("markdown report: any report fits, down to the first finding's title", "[report][render_markdown]") {
  Report r = large_report(400);
  r.findings[0].message = std::string(100'000, 'm');  // a placeholder that held a whole file
  for (std::size_t budget : {gd::k_markdown_max_bytes, std::size_t{32'768}, std::size_t{16'384}}) {
    std::string out = gd::render_markdown(r, budget);
    INFO("budget " << budget);
    INFO("the report begins: " << out.substr(0, 2500));
    CHECK(out.size() <= budget);
    CHECK(out.starts_with("## ❌ gpudoctor: 3 errors, 397 warnings\n\n"));
    CHECK(has(out, "`site.check-0` · area `devices`"));  // the most likely cause is always named
    CHECK(has(out, "Left out: the facts of `cuda.*` (257), `kmod.*` (1), `klog.*` (1), `pci.*` (256)"));
    // Each part is named once, by its last cut: most findings went whole, the last first.
    CHECK(has(out, "; the findings `site.check-399`, `site.check-398`, `site.check-397`"));
    CHECK(!has(out, "the evidence and sources of `site.check-399`"));
    CHECK(has(out, " more; "));  // a kind with more than 30 items names 30 and counts the rest
    CHECK(has(out, ". `gpudoctor --json --no-capture` has all of it"));
    CHECK(!has(out, "`site.check-399` · area"));
    CHECK(gd::is_valid_utf8(out));
  }
  // A value longer than its cap is cut, marked, and never split inside a character.
  std::string out = gd::render_markdown(r);
  CHECK(has(out, std::string(100, 'm') + "…"));
  CHECK(!has(out, std::string(4001, 'm')));
}

TEST_CASE("markdown: no problems found only when every layer was checked", "[render_markdown]") {
  Report r;
  r.run.mode = gd::RunMode::root;
  r.areas = {gd::AreaLine{"devices", "Device nodes", gd::AreaStatus::warning, "nvidiactl missing", {}}};
  std::string out = gd::render_markdown(r);
  CHECK(out.starts_with("## ❔ gpudoctor: no problem confirmed\n\nNo problem confirmed; 1 layer is flagged above.\n\n"));
  CHECK(out.find(gd::FactName::unchecked("no problems found")) == std::string::npos);
}

}  // namespace GD_UNITY_ID
