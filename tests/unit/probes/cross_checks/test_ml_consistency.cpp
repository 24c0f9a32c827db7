// torch's GPU code against the GPUs, its CUDA against the driver's, the toolkit against both.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "fact_access.hpp"
#include "core/fact_key.hpp"
#include "probes/cross_checks/ml_consistency.hpp"
#include "sys/real_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::list_of;
using gd::test::state_of;
using Names = std::vector<std::string>;

namespace {

FactSet run(FactSet facts) {
  gd::ProbeOptions options;
  gd::RealHost unused("/nonexistent", {});  // the probe reads facts only
  gd::probe_ml_consistency(unused, options, facts);
  return facts;
}

/// One GPU as CUDA reported it, a driver of CUDA `driver_cuda`, and torch with `sass` + `ptx`.
FactSet host(const std::string& gpu, const std::string& cc, const std::string& driver_cuda, const std::string& torch_cuda,
             Names sass, Names ptx) {
  FactSet facts;
  facts.set("cuda.device.0.name"_fact, gpu);
  facts.set("cuda.device.0.compute_capability"_fact, cc);
  facts.set("cuda.driver_version.text"_fact, driver_cuda);
  facts.set("kmod.nvidia.version"_fact, std::string("580.159.04"));
  facts.set("torch.installed"_fact, true);
  facts.set("torch.cpu_only"_fact, false);
  facts.set("torch.cuda"_fact, torch_cuda);
  facts.set("torch.sass"_fact, sass);
  facts.set("torch.ptx"_fact, ptx);
  facts.set_absent("wheels.jax_cuda_major"_fact);
  facts.set_absent("wheels.cupy_cuda_major"_fact);
  facts.set_absent("toolkit.build.version"_fact);
  return facts;
}

const Names k_cu124_sass = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};

}  // namespace

TEST_CASE("which compiled code runs on which GPU", "[ml]") {
  auto runs = [](const char* target, int major, int minor) {
    auto parsed = gd::parse_gpu_target(target);
    REQUIRE(parsed);
    return gd::target_runs_on(*parsed, major, minor);
  };
  CHECK(runs("sm_80", 8, 6));        // same major, lower minor: binary compatible
  CHECK_FALSE(runs("sm_86", 8, 0));  // never upwards in minor
  CHECK_FALSE(runs("sm_90", 12, 0));  // never across majors
  CHECK(runs("sm_90a", 9, 0));
  CHECK_FALSE(runs("sm_100a", 10, 3));  // 'a' code only on that exact GPU
  CHECK(runs("sm_100f", 10, 3));        // 'f' code on later members of the family
  CHECK(runs("compute_90", 12, 0));     // PTX is compiled by the driver for newer GPUs
  CHECK_FALSE(runs("compute_120", 9, 0));
  CHECK_FALSE(gd::parse_gpu_target("sm_"));
  CHECK_FALSE(gd::parse_gpu_target("gfx90a"));
}

TEST_CASE("torch's wheel index for a GPU", "[ml]") {
  CHECK(gd::torch_index_for(12, 0, 12) == "https://download.pytorch.org/whl/cu128");
  CHECK(gd::torch_index_for(12, 0, 13) == "https://download.pytorch.org/whl/cu130");
  CHECK(gd::torch_index_for(6, 1, 13) == "https://download.pytorch.org/whl/cu126");  // Pascal
  CHECK(gd::torch_index_for(7, 0, 12) == "https://download.pytorch.org/whl/cu126");  // Volta
}

TEST_CASE("an RTX 5090 with torch 2.6.0+cu124 has no kernels; with a cu128 build it has", "[ml]") {
  FactSet old = run(host("NVIDIA GeForce RTX 5090", "12.0", "12.8", "12.4", k_cu124_sass, {}));
  CHECK(list_of(old, "ml.gpus_without_torch_kernels"_fact) == Names{"GPU 0 NVIDIA GeForce RTX 5090 (sm_120)"});
  CHECK(old.get_string("ml.torch_index"_fact) == "https://download.pytorch.org/whl/cu128");
  CHECK(old.get_bool("ml.torch_cuda_major_above_driver"_fact) == false);
  CHECK(old.get_bool("ml.torch_cuda_minor_above_driver"_fact) == false);

  FactSet fixed = run(host("NVIDIA GeForce RTX 5090", "12.0", "12.8", "12.8",
                           {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}, {}));
  CHECK(list_of(fixed, "ml.gpus_without_torch_kernels"_fact).empty());
  CHECK(state_of(fixed, "ml.torch_index"_fact) == FactState::absent);

  // PTX of an older target is enough: the driver compiles it when the program loads.
  FactSet ptx = run(host("NVIDIA GeForce RTX 5090", "12.0", "12.8", "12.4", k_cu124_sass, {"compute_90"}));
  CHECK(list_of(ptx, "ml.gpus_without_torch_kernels"_fact).empty());
}

TEST_CASE("the PCI table's compute capability stands in when CUDA could not tell", "[ml]") {
  FactSet facts = host("x", "9.0", "13.0", "13.0", {"sm_90"}, {});
  facts.set_unknown("cuda.device.0.compute_capability"_fact, "cuInit failed");
  FactSet pci;
  for (const auto& [name, fact] : facts.all()) {
    if (!name.starts_with("cuda.device.")) pci.put(fact);
  }
  pci.set("pci.gpu.0.compute_capability"_fact, std::string("6.1"));
  pci.set("pci.gpu.0.chip"_fact, std::string("GP104"));
  FactSet out = run(pci);
  CHECK(list_of(out, "ml.gpus_without_torch_kernels"_fact) == Names{"GPU 0 GP104 (sm_61)"});
  CHECK(out.get_string("ml.torch_index"_fact) == "https://download.pytorch.org/whl/cu126");
}

TEST_CASE("torch's CUDA against the driver's", "[ml]") {
  FactSet major = run(host("NVIDIA H200", "9.0", "12.8", "13.0", {"sm_90"}, {}));
  CHECK(major.get_bool("ml.torch_cuda_major_above_driver"_fact) == true);
  CHECK(major.get_bool("ml.torch_cuda_minor_above_driver"_fact) == false);
  FactSet minor = run(host("NVIDIA H200", "9.0", "12.4", "12.8", {"sm_90"}, {}));
  CHECK(minor.get_bool("ml.torch_cuda_minor_above_driver"_fact) == true);
  CHECK(minor.get_string("ml.driver_cuda"_fact) == "12.4");
  FactSet same = run(host("NVIDIA H200", "9.0", "13.0", "13.0", {"sm_90"}, {}));
  CHECK(same.get_bool("ml.torch_cuda_major_above_driver"_fact) == false);
  CHECK(same.get_bool("ml.torch_cuda_minor_above_driver"_fact) == false);
}

TEST_CASE("without the helper, the module's branch gives the driver's CUDA", "[ml]") {
  FactSet facts = host("NVIDIA H200", "9.0", "13.0", "13.0", {"sm_90"}, {});
  facts.set_unknown("cuda.driver_version.text"_fact, "not checked (--no-cuda)");
  facts.set("container.driver_cuda_version"_fact, std::string("12.8"));
  FactSet out = run(facts);
  CHECK(out.get_string("ml.driver_cuda"_fact) == "12.8");
  CHECK(out.get_bool("ml.torch_cuda_major_above_driver"_fact) == true);
}

TEST_CASE("the toolkit against torch and the driver; jax and cupy against the driver", "[ml]") {
  FactSet facts = host("NVIDIA H200", "9.0", "12.8", "12.8", {"sm_90"}, {});
  facts.set("toolkit.build.version"_fact, std::string("13.0.88"));
  facts.set("wheels.jax_cuda_major"_fact, std::int64_t{13});
  facts.set("wheels.cupy_cuda_major"_fact, std::int64_t{12});
  FactSet out = run(facts);
  CHECK(out.get_string("ml.nvcc_vs_torch"_fact) == "major-differs");
  CHECK(out.get_bool("ml.toolkit_above_driver"_fact) == true);
  CHECK(list_of(out, "ml.frameworks_above_driver"_fact) == Names{"jax built for CUDA 13"});

  facts.set("toolkit.build.version"_fact, std::string("12.6.85"));
  CHECK(run(facts).get_string("ml.nvcc_vs_torch"_fact) == "minor-differs");
  CHECK(run(facts).get_bool("ml.toolkit_above_driver"_fact) == false);
  facts.set("toolkit.build.version"_fact, std::string("12.8.93"));
  CHECK(run(facts).get_string("ml.nvcc_vs_torch"_fact) == "same");
}

TEST_CASE("the driver branches a toolkit needs: its own release's and its major's first", "[ml]") {
  // Minor-version compatibility (CUDA compatibility guide): any 12.x build runs on 525+, any 13.x on
  // 580+; the toolkit's own release came with one branch (12.8: 570; 12.7: 570, 565 not tabled).
  FactSet facts = host("NVIDIA H200", "9.0", "12.8", "12.4", {"sm_90"}, {});
  const std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> cases = {
      {"12.8.93", 570, 525}, {"12.7.0", 570, 525}, {"12.0.1", 525, 525}, {"13.0.88", 580, 580},
      {"13.2.51", 595, 580}, {"11.8.89", 520, 450},
  };
  for (const auto& [version, branch, major_branch] : cases) {
    INFO(version);
    facts.set("toolkit.build.version"_fact, version);
    FactSet out = run(facts);
    CHECK(out.get_int("ml.toolkit_driver_branch"_fact) == branch);
    CHECK(out.get_int("ml.toolkit_major_driver_branch"_fact) == major_branch);
  }
  // Newer than the table: unknown with the reason, never a made-up branch.
  facts.set("toolkit.build.version"_fact, std::string("13.9.0"));
  FactSet out = run(facts);
  CHECK(state_of(out, "ml.toolkit_driver_branch"_fact) == FactState::unknown);
  CHECK(out.get_int("ml.toolkit_major_driver_branch"_fact) == 580);
  facts.set("toolkit.build.version"_fact, std::string("14.0.0"));
  CHECK(state_of(run(facts), "ml.toolkit_major_driver_branch"_fact) == FactState::unknown);
  // No toolkit: absent, like the other toolkit facts.
  FactSet no_toolkit = host("NVIDIA H200", "9.0", "12.8", "12.8", {"sm_90"}, {});
  CHECK(state_of(run(no_toolkit), "ml.toolkit_driver_branch"_fact) == FactState::absent);
}

TEST_CASE("no torch, a CPU torch, unknown architectures: absent or unknown, never a false finding", "[ml]") {
  FactSet none;
  none.set("torch.installed"_fact, false);
  none.set_absent("torch.cuda"_fact);
  none.set_absent("toolkit.build.version"_fact);
  none.set_absent("kmod.nvidia.version"_fact);
  FactSet out = run(none);
  CHECK(state_of(out, "ml.gpus_without_torch_kernels"_fact) == FactState::absent);
  CHECK(state_of(out, "ml.torch_cuda_major_above_driver"_fact) == FactState::absent);
  CHECK(state_of(out, "ml.driver_cuda"_fact) == FactState::absent);

  FactSet cpu = host("NVIDIA H200", "9.0", "13.0", "13.0", {}, {});
  cpu.set("torch.cpu_only"_fact, true);
  cpu.set_absent("torch.cuda"_fact);
  CHECK(state_of(run(cpu), "ml.gpus_without_torch_kernels"_fact) == FactState::absent);

  FactSet unknown = host("NVIDIA H200", "9.0", "13.0", "13.0", {}, {});
  unknown.set_unknown("torch.sass"_fact, "corrupt: size past the section");
  CHECK(state_of(run(unknown), "ml.gpus_without_torch_kernels"_fact) == FactState::unknown);
}

namespace {

/// torch 2.11.0+cu130's real union (the H200 capture) with `covering` as the architectures that
/// cover its fat binaries and the rest partial.
FactSet with_coverage(FactSet facts, Names covering, Names ptx_covering = {}) {
  Names partial;
  for (const std::string& arch : list_of(facts, "torch.sass"_fact)) {
    if (std::find(covering.begin(), covering.end(), arch) == covering.end()) partial.push_back(arch);
  }
  facts.set("torch.sass_covering"_fact, covering);
  facts.set("torch.sass_partial"_fact, partial);
  facts.set("torch.ptx_covering"_fact, ptx_covering);
  facts.set("torch.ptx_partial"_fact, Names{});
  return facts;
}

const Names k_cu130_union = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a",
                             "sm_103a", "sm_120", "sm_120a", "sm_121a"};
const Names k_rtx_pro = {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"};

}  // namespace

TEST_CASE("a GPU only a few fat binaries have code for has no torch kernels", "[ml][coverage]") {
  // sm_120a in one of the fat binaries runs on 12.0, but every other kernel has none.
  FactSet few = run(with_coverage(host(k_rtx_pro[0], k_rtx_pro[1], "13.0", "13.0", k_cu130_union, {}),
                                  {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100"}));
  CHECK(list_of(few, "ml.gpus_without_torch_kernels"_fact) ==
        Names{"GPU 0 NVIDIA RTX PRO 6000 Blackwell Server Edition (sm_120)"});
  CHECK(few.get_string("ml.torch_index"_fact) == "https://download.pytorch.org/whl/cu130");

  // The real torch: sm_120 in all 444 fat binaries.
  FactSet all = run(with_coverage(host(k_rtx_pro[0], k_rtx_pro[1], "13.0", "13.0", k_cu130_union, {}),
                                  {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}));
  CHECK(list_of(all, "ml.gpus_without_torch_kernels"_fact).empty());
  CHECK(state_of(all, "ml.torch_index"_fact) == FactState::absent);

  // A covering PTX target is enough too; a GB10 (12.1) runs the covering sm_120, not the partial sm_121a.
  FactSet gb10 = run(with_coverage(host("NVIDIA GB10", "12.1", "13.0", "13.0", k_cu130_union, {}),
                                   {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}));
  CHECK(list_of(gb10, "ml.gpus_without_torch_kernels"_fact).empty());
  FactSet ptx = run(with_coverage(host(k_rtx_pro[0], k_rtx_pro[1], "13.0", "13.0", k_cu130_union, {"compute_90"}),
                                  {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100"}, {"compute_90"}));
  CHECK(list_of(ptx, "ml.gpus_without_torch_kernels"_fact).empty());

  // Facts made without coverage (a hand-written set): the union decides, as before.
  FactSet old = run(host(k_rtx_pro[0], k_rtx_pro[1], "13.0", "13.0", {"sm_75", "sm_90", "sm_120a"}, {}));
  CHECK(list_of(old, "ml.gpus_without_torch_kernels"_fact).empty());

  // Coverage unknown: so is the verdict.
  FactSet unknown = host(k_rtx_pro[0], k_rtx_pro[1], "13.0", "13.0", k_cu130_union, {});
  unknown.set_unknown("torch.sass_covering"_fact, "corrupt: size past the section");
  unknown.set_unknown("torch.ptx_covering"_fact, "corrupt: size past the section");
  CHECK(state_of(run(unknown), "ml.gpus_without_torch_kernels"_fact) == FactState::unknown);
}

TEST_CASE("an --extension whose code for the GPU is in a few fat binaries has no kernels for it", "[ml][coverage]") {
  FactSet facts = host("NVIDIA H200", "9.0", "13.0", "13.0", {"sm_90"}, {});
  const std::string path = "/opt/venv/lib/python3.12/site-packages/flash_attn_2_cuda.so";
  facts.set("ext.0.path"_fact, path);
  facts.set("ext.0.sass"_fact, Names{"sm_80", "sm_90a"});
  facts.set("ext.0.ptx"_fact, Names{});
  facts.set("ext.0.sass_covering"_fact, Names{"sm_80"});
  facts.set("ext.0.ptx_covering"_fact, Names{});
  CHECK(list_of(run(facts), "ml.extensions_without_kernels"_fact) == Names{path + ": GPU 0 NVIDIA H200 (sm_90)"});
  facts.set("ext.0.sass_covering"_fact, Names{"sm_80", "sm_90a"});
  CHECK(list_of(run(facts), "ml.extensions_without_kernels"_fact).empty());
  facts.set_unknown("ext.0.sass_covering"_fact, "unreadable: EACCES");
  CHECK(state_of(run(facts), "ml.extensions_without_kernels"_fact) == FactState::unknown);
}

TEST_CASE("without CUDA (the PCI table's GPU) coverage decides too; the a/f rules hold among covering code",
          "[ml][coverage]") {
  // --no-cuda, --root or a capture without a helper run: the GPU is the PCI table's, as a
  // pre-flight's target GPU is. sm_90a in 4 of 444 fat binaries does not give an H200 kernels.
  FactSet pci;
  pci.set("pci.gpu.0.compute_capability"_fact, std::string("9.0"));
  pci.set("pci.gpu.0.chip"_fact, std::string("GH100"));
  pci.set("cuda.driver_version.text"_fact, std::string("13.0"));
  pci.set("kmod.nvidia.version"_fact, std::string("580.159.04"));
  pci.set("torch.installed"_fact, true);
  pci.set("torch.cpu_only"_fact, false);
  pci.set("torch.cuda"_fact, std::string("13.0"));
  pci.set("torch.sass"_fact, Names{"sm_80", "sm_90a", "sm_100"});
  pci.set("torch.ptx"_fact, Names{});
  pci.set_absent("wheels.jax_cuda_major"_fact);
  pci.set_absent("wheels.cupy_cuda_major"_fact);
  pci.set_absent("toolkit.build.version"_fact);
  FactSet few = run(with_coverage(pci, {"sm_80", "sm_100"}));
  CHECK(list_of(few, "ml.gpus_without_torch_kernels"_fact) == Names{"GPU 0 GH100 (sm_90)"});
  // Covering 'a' code runs on exactly its GPU (an sm_90a-only library on an H200) ...
  FactSet hopper_only = run(with_coverage(pci, {"sm_90a"}));
  CHECK(list_of(hopper_only, "ml.gpus_without_torch_kernels"_fact).empty());
  // ... and never on another of its major: a B300 (10.3) does not run covering sm_100a code.
  FactSet b300 = pci;
  b300.set("pci.gpu.0.compute_capability"_fact, std::string("10.3"));
  b300.set("torch.sass"_fact, Names{"sm_90", "sm_100a"});
  CHECK(list_of(run(with_coverage(b300, {"sm_90", "sm_100a"})), "ml.gpus_without_torch_kernels"_fact) ==
        Names{"GPU 0 GH100 (sm_103)"});
  // Covering 'f' code runs on the later members of its family.
  b300.set("torch.sass"_fact, Names{"sm_90", "sm_100f"});
  CHECK(list_of(run(with_coverage(b300, {"sm_90", "sm_100f"})), "ml.gpus_without_torch_kernels"_fact).empty());
}

}  // namespace GD_UNITY_ID
