// --format prometheus: the families, label sets and values of the metrics contract
// (report/render_prometheus; README "Prometheus metrics").

#include "core/fact_key.hpp"
#include "report/render_prometheus.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Finding;
using gd::Report;
using gd::Severity;

namespace {

/// The sample lines of `text` whose name is `family` (comments left out).
std::vector<std::string> samples(const std::string& text, const std::string& family) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.starts_with(family + " ") || line.starts_with(family + "{")) out.push_back(line);
  }
  return out;
}

/// A healthy GPU 0, and a GPU 1 whose kernel failed with 719, on bus ids that CUDA numbers the other way round.
Report two_gpu_report() {
  Report r;
  r.run.gpudoctor_version = "0.1.0";
  r.run.duration_ms = 412;
  gd::FactSet& f = r.facts;
  f.set("kmod.nvidia.version"_fact, std::string("580.159.04"));
  f.set("pci.nvidia_gpu_count"_fact, std::int64_t{2});
  f.set("pci.gpu.0.bus_id"_fact, std::string("0000:1a:00.0"));
  f.set("pci.gpu.1.bus_id"_fact, std::string("0000:3b:00.0"));
  f.set("cuda.helper.status"_fact, std::string("ok"));
  f.set("cuda.libcuda.loaded"_fact, true);
  f.set("cuda.init.result"_fact, std::int64_t{0});
  f.set("cuda.device_count"_fact, std::int64_t{2});
  f.set("cuda.device.0.pci_bus_id"_fact, std::string("0000:3B:00.0"));
  f.set("cuda.device.0.uuid"_fact, std::string("GPU-bbbb"));
  f.set("cuda.device.0.context.result"_fact, std::int64_t{0});
  f.set("cuda.device.0.alloc.result"_fact, std::int64_t{0});
  f.set("cuda.device.0.module.result"_fact, std::int64_t{0});
  f.set("cuda.device.0.kernel.result"_fact, std::int64_t{719});
  f.set("cuda.device.1.pci_bus_id"_fact, std::string("0000:1A:00.0"));
  f.set("cuda.device.1.uuid"_fact, std::string("GPU-aaaa"));
  f.set("cuda.device.1.check"_fact, std::string("ok"));
  f.set("nvml.device_count"_fact, std::int64_t{2});
  f.set("nvml.device.0.pci_bus_id"_fact, std::string("00000000:1A:00.0"));
  f.set("nvml.device.0.remap.pending"_fact, false);
  f.set("nvml.device.0.remap.failure"_fact, false);
  f.set("nvml.device.0.ecc.uncorrected_volatile"_fact, std::int64_t{0});
  f.set("nvml.device.0.recovery_action"_fact, std::int64_t{0});
  f.set("nvml.device.1.pci_bus_id"_fact, std::string("00000000:3B:00.0"));
  f.set("nvml.device.1.remap.pending"_fact, true);
  f.set_unknown("nvml.device.1.remap.failure"_fact, "NVML_ERROR_NOT_SUPPORTED");
  f.set("nvml.device.1.ecc.uncorrected_volatile"_fact, std::int64_t{3});
  f.set("nvml.device.1.recovery_action"_fact, std::int64_t{1});
  Finding finding;
  finding.id = "cuda.kernel-launch-failed";
  finding.severity = Severity::error;
  finding.area = "cuda";
  finding.action = gd::Action::reset_gpu;
  finding.message = "must never appear: \"quoted\"";
  r.findings = {finding};
  return r;
}

}  // namespace

TEST_CASE("prometheus: every family has HELP and TYPE, a gpudoctor_ name and its documented labels",
          "[report][prometheus]") {
  std::string text = gd::render_prometheus(two_gpu_report(), 1764590000.5);
  std::set<std::string> names;
  for (const gd::PromFamily& family : gd::prometheus_families()) {
    std::string name(family.name);
    CHECK(std::regex_match(name, std::regex("gpudoctor_[a-z0-9_]+")));
    CHECK(names.insert(name).second);
    CHECK(family.type == "gauge");
    CHECK(text.find("# HELP " + name + " ") != std::string::npos);
    CHECK(text.find("# TYPE " + name + " gauge\n") != std::string::npos);
    // Each sample carries exactly the documented label names, in order.
    std::string expected_labels(family.labels);
    for (const std::string& line : samples(text, name)) {
      std::string labels;
      std::regex label(R"(([a-z_]+)=\"(?:[^\"\\]|\\.)*\")");
      for (std::sregex_iterator it(line.begin(), line.end(), label), end; it != end; ++it) {
        labels += (labels.empty() ? "" : ",") + (*it)[1].str();
      }
      CHECK(labels == expected_labels);
    }
  }
  CHECK(text.find("must never appear") == std::string::npos);  // messages never become labels
}

TEST_CASE("prometheus: the run, the findings and the GPU counts", "[report][prometheus]") {
  std::string text = gd::render_prometheus(two_gpu_report(), 1764590000.5);
  CHECK(samples(text, "gpudoctor_info") == std::vector<std::string>{R"(gpudoctor_info{version="0.1.0",driver="580.159.04"} 1)"});
  CHECK(samples(text, "gpudoctor_last_run_timestamp_seconds")[0] == "gpudoctor_last_run_timestamp_seconds 1764590000.500");
  CHECK(samples(text, "gpudoctor_run_duration_seconds")[0] == "gpudoctor_run_duration_seconds 0.412");
  CHECK(samples(text, "gpudoctor_findings") ==
        std::vector<std::string>{R"(gpudoctor_findings{severity="error"} 1)", R"(gpudoctor_findings{severity="warning"} 0)",
                                 R"(gpudoctor_findings{severity="info"} 0)"});
  CHECK(samples(text, "gpudoctor_finding") ==
        std::vector<std::string>{
            R"(gpudoctor_finding{id="cuda.kernel-launch-failed",severity="error",area="cuda",scope="node",action="reset-gpu",confirmed="true"} 1)"});
  CHECK(samples(text, "gpudoctor_gpus") ==
        std::vector<std::string>{R"(gpudoctor_gpus{source="pci"} 2)", R"(gpudoctor_gpus{source="cuda"} 2)",
                                 R"(gpudoctor_gpus{source="nvml"} 2)"});
  CHECK(samples(text, "gpudoctor_cuda_init_result")[0] == "gpudoctor_cuda_init_result 0");
}

TEST_CASE("prometheus: per GPU in bus order, joined across CUDA's and NVML's numbering", "[report][prometheus]") {
  std::string text = gd::render_prometheus(two_gpu_report(), 0);
  CHECK(samples(text, "gpudoctor_gpu_proven") ==
        std::vector<std::string>{R"(gpudoctor_gpu_proven{index="0",bus_id="0000:1a:00.0",uuid="GPU-aaaa"} 1)",
                                 R"(gpudoctor_gpu_proven{index="1",bus_id="0000:3b:00.0",uuid="GPU-bbbb"} 0)"});
  CHECK(samples(text, "gpudoctor_gpu_row_remap_pending") ==
        std::vector<std::string>{R"(gpudoctor_gpu_row_remap_pending{index="0",bus_id="0000:1a:00.0",uuid="GPU-aaaa"} 0)",
                                 R"(gpudoctor_gpu_row_remap_pending{index="1",bus_id="0000:3b:00.0",uuid="GPU-bbbb"} 1)"});
  CHECK(samples(text, "gpudoctor_gpu_row_remap_failure")[1].ends_with("} NaN"));  // NOT_SUPPORTED: unknown
  CHECK(samples(text, "gpudoctor_gpu_ecc_uncorrectable_volatile_errors")[1].ends_with("} 3"));
  CHECK(samples(text, "gpudoctor_gpu_recovery_action")[1].ends_with("} 1"));
}

TEST_CASE("prometheus: NVLink links up per GPU; no NVLink is 0, a helper before 1.3 NaN", "[report][prometheus]") {
  Report r = two_gpu_report();
  SECTION("links reported") {
    r.facts.set("nvlink.gpu.0.links_up"_fact, std::int64_t{18});    // NVML's GPU 0 is the bus's first
    r.facts.set("nvlink.gpu.1.links_up"_fact, std::int64_t{17});
    std::string text = gd::render_prometheus(r, 0);
    CHECK(samples(text, "gpudoctor_gpu_nvlink_links_up") ==
          std::vector<std::string>{R"(gpudoctor_gpu_nvlink_links_up{index="0",bus_id="0000:1a:00.0",uuid="GPU-aaaa"} 18)",
                                   R"(gpudoctor_gpu_nvlink_links_up{index="1",bus_id="0000:3b:00.0",uuid="GPU-bbbb"} 17)"});
  }
  SECTION("no NVLink, unknown") {
    r.facts.set_absent("nvlink.gpu.0.links_up"_fact, "helper:nvml-nvlink", "no NVLink on this GPU (NVML_ERROR_NOT_SUPPORTED)");
    r.facts.set_unknown("nvlink.gpu.1.links_up"_fact, "the helper of this capture predates the NVLink queries");
    std::string text = gd::render_prometheus(r, 0);
    CHECK(samples(text, "gpudoctor_gpu_nvlink_links_up")[0].ends_with("} 0"));
    CHECK(samples(text, "gpudoctor_gpu_nvlink_links_up")[1].ends_with("} NaN"));
  }
}

TEST_CASE("prometheus: unknown is NaN, a failed cuInit fails every GPU", "[report][prometheus]") {
  Report r;
  r.run.gpudoctor_version = "0.1.0";
  r.facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
  r.facts.set("pci.gpu.0.bus_id"_fact, std::string("0000:00:06.0"));
  SECTION("the helper did not run (--no-cuda, --root)") {
    r.facts.set_unknown("cuda.helper.status"_fact, "--no-cuda");
    r.facts.set_unknown("cuda.init.result"_fact, "--no-cuda");
    r.facts.set_unknown("cuda.device_count"_fact, "--no-cuda");
    r.facts.set_unknown("nvml.device_count"_fact, "--no-cuda");
    std::string text = gd::render_prometheus(r, 0);
    CHECK(samples(text, "gpudoctor_gpus")[1] == R"(gpudoctor_gpus{source="cuda"} NaN)");
    CHECK(samples(text, "gpudoctor_cuda_init_result")[0] == "gpudoctor_cuda_init_result NaN");
    CHECK(samples(text, "gpudoctor_gpu_proven")[0].ends_with("} NaN"));
    CHECK(samples(text, "gpudoctor_gpu_recovery_action")[0] == R"(gpudoctor_gpu_recovery_action{index="0",bus_id="0000:00:06.0",uuid=""} NaN)");
    CHECK(samples(text, "gpudoctor_info")[0] == R"(gpudoctor_info{version="0.1.0",driver=""} 1)");
  }
  SECTION("cuInit failed: CUDA sees no GPU, none is proven") {
    r.facts.set("cuda.helper.status"_fact, std::string("ok"));
    r.facts.set("cuda.libcuda.loaded"_fact, true);
    r.facts.set("cuda.init.result"_fact, std::int64_t{999});
    r.facts.set_absent("cuda.device_count"_fact, "helper:cuInit", "cuInit did not succeed");
    std::string text = gd::render_prometheus(r, 0);
    CHECK(samples(text, "gpudoctor_gpus")[1] == R"(gpudoctor_gpus{source="cuda"} 0)");
    CHECK(samples(text, "gpudoctor_cuda_init_result")[0] == "gpudoctor_cuda_init_result 999");
    CHECK(samples(text, "gpudoctor_gpu_proven")[0].ends_with("} 0"));
  }
  SECTION("libcuda did not load") {
    r.facts.set("cuda.helper.status"_fact, std::string("ok"));
    r.facts.set("cuda.libcuda.loaded"_fact, false);
    r.facts.set_absent("cuda.init.result"_fact, "helper:dlopen", "libcuda did not load");
    std::string text = gd::render_prometheus(r, 0);
    CHECK(samples(text, "gpudoctor_cuda_init_result")[0] == "gpudoctor_cuda_init_result NaN");
    CHECK(samples(text, "gpudoctor_gpu_proven")[0].ends_with("} 0"));
  }
  SECTION("CUDA works but does not list this GPU (CUDA_VISIBLE_DEVICES, a container's share): not tried") {
    r.facts.set("cuda.helper.status"_fact, std::string("ok"));
    r.facts.set("cuda.libcuda.loaded"_fact, true);
    r.facts.set("cuda.init.result"_fact, std::int64_t{0});
    r.facts.set("cuda.device_count"_fact, std::int64_t{0});
    std::string text = gd::render_prometheus(r, 0);
    CHECK(samples(text, "gpudoctor_gpu_proven")[0].ends_with("} NaN"));
  }
}

TEST_CASE("prometheus: hostile label values stay inside their quotes", "[report][prometheus]") {
  Report r;
  r.facts.set("pci.gpu.0.bus_id"_fact, std::string("0000:00:06.0\"} 1\ngpudoctor_evil 1 \\"));
  Finding f;
  f.id = "site.x";
  f.area = "a\"b";
  r.findings = {f};
  std::string text = gd::render_prometheus(r, 0);
  CHECK(samples(text, "gpudoctor_evil").empty());
  CHECK(text.find(R"(bus_id="0000:00:06.0\"} 1\ngpudoctor_evil 1 \\")") != std::string::npos);
  CHECK(text.find(R"(area="a\"b")") != std::string::npos);
}

TEST_CASE("prometheus: a GPU another job keeps busy is not proven, not failed, and says so", "[report][prometheus]") {
  Report r = two_gpu_report();
  // GPU 0 on the bus (CUDA's device 1): its context ran out of memory under another process.
  r.facts.set_absent("cuda.device.1.check"_fact);
  r.facts.set("cuda.device.1.context.result"_fact, std::int64_t{2});
  r.facts.set("cuda.device.1.busy"_fact, true);
  r.facts.set("cuda.device.0.busy"_fact, false);
  std::string text = gd::render_prometheus(r, 0);
  CHECK(samples(text, "gpudoctor_gpu_proven") ==
        std::vector<std::string>{R"(gpudoctor_gpu_proven{index="0",bus_id="0000:1a:00.0",uuid="GPU-aaaa"} NaN)",
                                 R"(gpudoctor_gpu_proven{index="1",bus_id="0000:3b:00.0",uuid="GPU-bbbb"} 0)"});
  CHECK(samples(text, "gpudoctor_gpu_busy") ==
        std::vector<std::string>{R"(gpudoctor_gpu_busy{index="0",bus_id="0000:1a:00.0",uuid="GPU-aaaa"} 1)",
                                 R"(gpudoctor_gpu_busy{index="1",bus_id="0000:3b:00.0",uuid="GPU-bbbb"} 0)"});
}

TEST_CASE("prometheus: a finding CUDA did not confirm carries confirmed=\"false\"", "[report][prometheus]") {
  Report r = two_gpu_report();
  r.findings.front().confirmed = false;
  CHECK(samples(gd::render_prometheus(r, 0), "gpudoctor_finding").front().find(R"(confirmed="false"} 1)") != std::string::npos);
}

}  // namespace GD_UNITY_ID
