// Per-architecture coverage of a CUDA library's fat binaries: the counts the scanner keeps, which
// architectures cover the library, the facts, on hand-laid containers, the real torch 2.11.0+cu130
// of the H200 capture, and a library nvcc builds from three source files.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "core/fact_set.hpp"
#include "fact_access.hpp"
#include "fatbin_bytes.hpp"
#include "host_captures.hpp"
#include "host_tools.hpp"
#include "probes/shared/cuda_fatbin.hpp"
#include "probes/python/gpu_code_coverage.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"
#include "tiny_elf.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::ArchVariant;
using gd::FatbinArchCount;
using gd::FatbinStatus;
using gd::test::container_bytes;
using gd::test::k_host_flags;
using gd::test::list_of;
using Names = std::vector<std::string>;

namespace {

constexpr const char* k_path = "/opt/venv/lib/python3.12/site-packages/ext/libext.so";

gd::FatbinScan scan_section(const std::string& section) {
  gd::Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  capture.paths[k_path].read = gd::test::elf_with_sections({{".text", "\xc3"}, {".nv_fatbin", section}});
  gd::ReplayHost host(std::move(capture));
  return gd::scan_fat_binaries(host, k_path);
}

gd::test::Entry sass(std::uint32_t arch, std::uint64_t extra_flags = 0) {
  return {gd::k_fatbin_kind_elf, arch, k_host_flags | extra_flags, 32, ""};
}
gd::test::Entry ptx(std::uint32_t arch) { return {gd::k_fatbin_kind_ptx, arch, k_host_flags, 32, ""}; }
gd::test::Entry lto(std::uint32_t arch) { return {8, arch, k_host_flags | 0x10000, 32, ""}; }

/// Three translation units built for sm_80 and sm_90, one of them also for sm_90a (twice: a
/// second kernel of the same architecture) and with PTX for compute_90; and a container of LTO
/// IR only, which holds no code a GPU loads.
std::string three_units() {
  constexpr std::uint64_t a = gd::k_fatbin_flag_arch_specific;
  return container_bytes({sass(80), sass(90)}) + container_bytes({sass(80), sass(90), sass(90, a), sass(90, a), ptx(90)}) +
         container_bytes({sass(80), sass(90)}) + container_bytes({lto(90)});
}

gd::FactSet facts_of(const gd::FatbinScan& scan, const std::string& prefix) {
  gd::FactSet facts;
  gd::set_gpu_code_coverage_facts(facts, prefix, scan, k_path);
  return facts;
}

}  // namespace

TEST_CASE("coverage: each container counts once per architecture it holds", "[probes][fatbin][coverage]") {
  auto scan = scan_section(three_units());
  INFO(scan.error);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(scan.containers == 4);
  CHECK(scan.containers_with_code == 3);  // the LTO-only one is linked elsewhere, never loaded as it is
  CHECK(scan.sass_containers == std::vector<FatbinArchCount>{{{80, ArchVariant::plain}, 3},
                                                             {{90, ArchVariant::plain}, 3},
                                                             {{90, ArchVariant::arch_specific}, 1}});
  CHECK(scan.ptx_containers == std::vector<FatbinArchCount>{{{90, ArchVariant::plain}, 1}});
  // The union is what it was: every architecture once.
  CHECK(gd::sass_arch_names(scan) == Names{"sm_80", "sm_90", "sm_90a"});
  CHECK(gd::ptx_arch_names(scan) == Names{"compute_90"});
}

TEST_CASE("coverage: an architecture in one of three fat binaries is partial", "[probes][fatbin][coverage]") {
  auto scan = scan_section(three_units());
  REQUIRE(scan.status == FatbinStatus::ok);
  gd::FactSet facts = facts_of(scan, "ext.0.");
  CHECK(list_of(facts, "ext.0.sass_covering"_fact) == Names{"sm_80", "sm_90"});
  CHECK(list_of(facts, "ext.0.sass_partial"_fact) == Names{"sm_90a"});
  CHECK(list_of(facts, "ext.0.ptx_covering"_fact).empty());
  CHECK(list_of(facts, "ext.0.ptx_partial"_fact) == Names{"compute_90"});
  CHECK(list_of(facts, "ext.0.fatbin_arch_counts"_fact) == Names{"sm_80 3/3", "sm_90 3/3", "sm_90a 1/3", "compute_90 1/3"});
  CHECK(facts.get_int("ext.0.fatbins_with_code"_fact) == 3);
  CHECK(gd::gpu_code_coverage_fact_names("ext.0.") ==
        Names{"ext.0.sass_covering"_fact, "ext.0.sass_partial"_fact, "ext.0.ptx_covering"_fact, "ext.0.ptx_partial"_fact,
              "ext.0.fatbin_arch_counts"_fact, "ext.0.fatbins_with_code"_fact});
}

TEST_CASE("coverage: half of the fat binaries with code is enough, fewer is not", "[probes][fatbin][coverage]") {
  CHECK(gd::covers_library(1, 1));
  CHECK(gd::covers_library(1, 2));
  CHECK_FALSE(gd::covers_library(1, 3));
  CHECK(gd::covers_library(2, 3));
  CHECK(gd::covers_library(222, 444));
  CHECK_FALSE(gd::covers_library(221, 444));
  CHECK_FALSE(gd::covers_library(59, 444));  // sm_100a in torch 2.11.0+cu130
  CHECK_FALSE(gd::covers_library(0, 0));
  CHECK(gd::covers_library(0xffffffffu, 0xffffffffu));  // no overflow in the doubling
}

TEST_CASE("coverage: without a shared architecture list every architecture covers", "[probes][fatbin][coverage]") {
  // Each fat binary built for its own architecture, as NVIDIA's math libraries are: no list to
  // tell additions from, so none is called partial (and no GPU uncovered on that guess).
  auto scan = scan_section(container_bytes({sass(75)}) + container_bytes({sass(80)}) + container_bytes({sass(90)}) +
                           container_bytes({sass(120)}) + container_bytes({ptx(120)}));
  REQUIRE(scan.status == FatbinStatus::ok);
  auto coverage = gd::gpu_code_coverage(scan);
  CHECK_FALSE(coverage.common_list);
  gd::FactSet facts = facts_of(scan, "ext.0.");
  CHECK(list_of(facts, "ext.0.sass_covering"_fact) == Names{"sm_75", "sm_80", "sm_90", "sm_120"});
  CHECK(list_of(facts, "ext.0.sass_partial"_fact).empty());
  CHECK(list_of(facts, "ext.0.ptx_covering"_fact) == Names{"compute_120"});

  // No code at all (LTO IR only): nothing covers, and nothing is counted.
  auto none = scan_section(container_bytes({lto(80)}));
  REQUIRE(none.status == FatbinStatus::ok);
  gd::FactSet empty = facts_of(none, "torch.");
  CHECK(list_of(empty, "torch.sass_covering"_fact).empty());
  CHECK(list_of(empty, "torch.fatbin_arch_counts"_fact).empty());
  CHECK(empty.get_int("torch.fatbins_with_code"_fact) == 0);
}

TEST_CASE("coverage: the real torch 2.11.0+cu130 of the H200 capture", "[probes][fatbin][coverage]") {
  // What `cuobjdump --list-elf libtorch_cuda.so` showed on that host: six architectures in all 444
  // fat binaries, torch.cuda.get_arch_list() exactly, and six more in a few; no PTX.
  gd::ReplayHost host(gd::test::host_capture("h200-live-ml"));
  const std::string library = "/opt/torch/.venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
  gd::FatbinScanLimits limits;
  limits.read_window = 128;  // as the probe reads it: the capture holds those reads
  auto scan = gd::scan_fat_binaries(host, library, limits);
  INFO(scan.error);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(scan.containers_with_code == 444);
  gd::FactSet facts = facts_of(scan, "torch.");
  CHECK(list_of(facts, "torch.sass_covering"_fact) == Names{"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"});
  CHECK(list_of(facts, "torch.sass_partial"_fact) == Names{"sm_89", "sm_90a", "sm_100a", "sm_103a", "sm_120a", "sm_121a"});
  CHECK(list_of(facts, "torch.ptx_covering"_fact).empty());
  CHECK(list_of(facts, "torch.ptx_partial"_fact).empty());
  CHECK(list_of(facts, "torch.fatbin_arch_counts"_fact) ==
        Names{"sm_75 444/444", "sm_80 444/444", "sm_86 444/444", "sm_89 1/444", "sm_90 444/444", "sm_90a 4/444",
              "sm_100 444/444", "sm_100a 59/444", "sm_103a 59/444", "sm_120 444/444", "sm_120a 1/444",
              "sm_121a 1/444"});
}

namespace {

bool run(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

}  // namespace

TEST_CASE("coverage: a library nvcc builds from three files, one with an extra architecture",
          "[probes][fatbin][coverage][needs-nvcc]") {
  REQUIRE(gd::test::have("nvcc"));
  gd::test::TempTree tree;
  gd::RealHost host("/", {});
  // Each file is its own fat binary in .nv_fatbin (no -rdc): two built for sm_80 and sm_90, the
  // third also for sm_90a with its PTX, as torch adds arch-specific kernels to a few files.
  const std::string cuda_bin = gd::test::k_cuda_bin;
  const std::string common = " -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90";
  std::string objects;
  for (const char* name : {"a", "b", "c"}) {
    tree.file(std::string("/") + name + ".cu", std::string("__global__ void gd_cov_") + name +
                                                   "(int* p) { p[threadIdx.x] = 7; }\n");
    std::string extra = std::string(name) == "c" ? " -gencode arch=compute_90a,code=[sm_90a,compute_90a]" : "";
    std::string object = tree.at(std::string("/") + name + ".o");
    REQUIRE(run(cuda_bin + "/nvcc -c" + common + extra + " " + tree.at(std::string("/") + name + ".cu") + " -o " +
                object));
    objects += " " + object;
  }

  SECTION("linked by the host compiler, as CMake and torch's BuildExtension link") {
    const std::string so = tree.at("/libcov.so");
    REQUIRE(run("g++ -shared" + objects + " -L" + cuda_bin + "/../lib64 -lcudart -o " + so));
    auto scan = gd::scan_fat_binaries(host, so);
    INFO(scan.error);
    REQUIRE(scan.status == FatbinStatus::ok);
    CHECK(scan.sections == Names{".nv_fatbin"});
    CHECK(scan.containers_with_code == 3);
    gd::FactSet facts = facts_of(scan, "ext.0.");
    CHECK(list_of(facts, "ext.0.fatbin_arch_counts"_fact) == Names{"sm_80 3/3", "sm_90 3/3", "sm_90a 1/3", "compute_90a 1/3"});
    CHECK(list_of(facts, "ext.0.sass_covering"_fact) == Names{"sm_80", "sm_90"});
    CHECK(list_of(facts, "ext.0.sass_partial"_fact) == Names{"sm_90a"});
    CHECK(list_of(facts, "ext.0.ptx_partial"_fact) == Names{"compute_90a"});
  }

  SECTION("linked by nvcc -shared, which adds a device-link fat binary for its default architecture") {
    // nvcc -shared runs nvlink --arch=sm_75 (CUDA 13's default) over the objects: one more fat
    // binary, an sm_75 cubin without kernels. It is one fat binary of four, so it stays partial.
    const std::string so = tree.at("/libcov-nvcc.so");
    REQUIRE(run(cuda_bin + "/nvcc -shared" + objects + " -o " + so));
    auto scan = gd::scan_fat_binaries(host, so);
    INFO(scan.error);
    REQUIRE(scan.status == FatbinStatus::ok);
    CHECK(scan.containers_with_code == 4);
    gd::FactSet facts = facts_of(scan, "ext.0.");
    CHECK(list_of(facts, "ext.0.fatbin_arch_counts"_fact) ==
          Names{"sm_75 1/4", "sm_80 3/4", "sm_90 3/4", "sm_90a 1/4", "compute_90a 1/4"});
    CHECK(list_of(facts, "ext.0.sass_covering"_fact) == Names{"sm_80", "sm_90"});
    CHECK(list_of(facts, "ext.0.sass_partial"_fact) == Names{"sm_75", "sm_90a"});
  }
}

}  // namespace GD_UNITY_ID
