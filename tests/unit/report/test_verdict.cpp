// The last line (issue 18): "No problems found" only when every layer was checked and none is
// flagged; never under a [!] or [X] overview line, never when the checks that need CUDA did not run.

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"
#include "report/verdict.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::AreaLine;
using gd::AreaStatus;
using gd::Report;
using gd::Verdict;

namespace {

Report checked_host() {
  Report r;
  r.areas = {AreaLine{"pci", "PCI", AreaStatus::ok, "1 NVIDIA GPU", {}},
             AreaLine{"devices", "Device nodes", AreaStatus::ok, "all present", {}},
             AreaLine{"cuda", "CUDA driver", AreaStatus::ok, "cuInit OK", {}}};
  return r;
}

gd::Inconclusive needing(std::string id, std::string fact) {
  return gd::Inconclusive{std::move(id), "title", {{std::move(fact), "unknown (not checked (--no-cuda))", "helper"}}};
}

gd::Finding finding(gd::Severity severity, bool confirmed) {
  gd::Finding f;
  f.id = "devices.uvm-missing";
  f.severity = severity;
  f.confirmed = confirmed;
  return f;
}

}  // namespace

TEST_CASE("verdict: every layer checked, nothing flagged", "[report][verdict]") {
  Verdict v = gd::verdict_of(checked_host());
  CHECK(v.kind == Verdict::Kind::healthy);
  CHECK(v.text == "No problems found.");
  CHECK(gd::to_string(v.kind) == "healthy");
}

TEST_CASE("verdict: a flagged layer without a finding is not healthy", "[report][verdict]") {
  Report r = checked_host();
  r.areas[1].status = AreaStatus::warning;  // "[!] Device nodes: nvidiactl missing"
  Verdict v = gd::verdict_of(r);
  CHECK(v.kind == Verdict::Kind::incomplete);
  CHECK(v.text == "No problem confirmed; 1 layer is flagged above.");
}

TEST_CASE("verdict: checks that need CUDA, which was not run", "[report][verdict]") {
  Report r = checked_host();
  r.areas[2].status = AreaStatus::skipped;
  r.areas[0].status = AreaStatus::unknown;
  r.inconclusive = {needing("cuda.stub-libcuda", "cuda.libcuda.is_stub"_fact), needing("nvml.persistence-off", "nvml.device.0.persistence"_fact),
                    needing("driver.gpu-excluded", "kmod.nvidia.excluded")};
  Verdict v = gd::verdict_of(r);
  CHECK(v.kind == Verdict::Kind::incomplete);
  CHECK(v.text == "No problem confirmed; 2 checks need CUDA, which was not run, 1 other check could not decide, 1 layer is unknown.");
  CHECK(gd::to_string(v.kind) == "incomplete");
}

TEST_CASE("verdict: names the part of the helper whose answer is missing", "[report][verdict]") {
  // As on the H200 with an empty libnvidia-ml.so.1: CUDA answered, NVML did not.
  Report r = checked_host();
  r.inconclusive = {needing("nvml.persistence-off", "nvml.device.0.persistence"_fact), needing("nvml.ecc-uncorrectable-errors", "nvml.health.ecc_uncorrected_volatile"_fact)};
  CHECK(gd::verdict_of(r).text == "No problem confirmed; 2 checks need NVML's answer, which this run did not give.");
  // A helper that hung in cuInit: the CUDA facts are unknown.
  r.inconclusive = {needing("cuda.stub-libcuda", "cuda.libcuda.is_stub"_fact)};
  CHECK(gd::verdict_of(r).text == "No problem confirmed; 1 check needs CUDA's answer, which this run did not give.");
  // Both parts missing, in one check or across checks.
  r.inconclusive = {needing("cuda.stub-libcuda", "cuda.libcuda.is_stub"_fact), needing("nvml.persistence-off", "nvml.device.0.persistence"_fact),
                    needing("driver.gpu-excluded", "kmod.nvidia.excluded")};
  CHECK(gd::verdict_of(r).text ==
        "No problem confirmed; 2 checks need CUDA's and NVML's answers, which this run did not give, 1 other check could not decide.");
  gd::Inconclusive both{"cuda.no-device-while-nvml-sees-gpus", "title",
                        {{"cuda.init.result"_fact, "unknown (helper hung)", "helper"}, {"nvml.device_count"_fact, "unknown (helper hung)", "helper"}}};
  r.inconclusive = {both};
  CHECK(gd::verdict_of(r).text == "No problem confirmed; 1 check needs CUDA's and NVML's answers, which this run did not give.");
}

TEST_CASE("verdict: CUDA skipped and nothing else undecided still says so", "[report][verdict]") {
  Report r = checked_host();
  r.areas[2].status = AreaStatus::skipped;
  CHECK(gd::verdict_of(r).text == "No problem confirmed; CUDA was not run.");
}

TEST_CASE("verdict: problems name how many CUDA did not confirm", "[report][verdict]") {
  Report r = checked_host();
  r.findings = {finding(gd::Severity::error, false), finding(gd::Severity::warning, true)};
  Verdict v = gd::verdict_of(r);
  CHECK(v.kind == Verdict::Kind::problems);
  CHECK(v.text == "Found 1 error and 1 warning. 1 is not confirmed by CUDA. The first finding is the most likely cause.");
  r.findings = {finding(gd::Severity::error, false)};
  CHECK(gd::verdict_of(r).text == "Found 1 error and 0 warnings. None is confirmed by CUDA. The first finding is the most likely cause.");
  CHECK(gd::to_string(gd::verdict_of(r).kind) == "problems");
}

TEST_CASE("verdict: notes alone leave a checked host healthy", "[report][verdict]") {
  Report r = checked_host();
  r.findings = {finding(gd::Severity::info, true)};
  CHECK(gd::verdict_of(r).text == "No problems found. (1 note)");
  r.run.scope = gd::RunScope::node;
  CHECK(gd::verdict_of(r).text == "No node problems found. (1 note)");
}

TEST_CASE("verdict: a health check never calls a GPU healthy that another job kept busy", "[report][verdict]") {
  // --scope node leaves cuda.gpu-busy out (it is no node problem), but the GPU was not proven.
  Report r = checked_host();
  r.run.scope = gd::RunScope::node;
  r.facts.set("cuda.context.busy_count"_fact, std::int64_t{1});
  Verdict v = gd::verdict_of(r);
  CHECK(v.kind == Verdict::Kind::incomplete);
  CHECK(v.text == "No problem confirmed; 1 GPU is busy with other processes' work and not proven.");
  r.facts.set("cuda.context.busy_count"_fact, std::int64_t{0});
  CHECK(gd::verdict_of(r).text == "No node problems found.");
}

}  // namespace GD_UNITY_ID
