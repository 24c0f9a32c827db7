#include "probes/libraries/libraries.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "ldconfig_tree.hpp"
#include "core/fact_key.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;
using List = std::vector<std::string>;

namespace {

constexpr const char* k_nvidia_llp = "/usr/local/nvidia/lib64:/usr/local/nvidia/lib";

/// What the earlier probes (system, environment, nvidia_module) leave for this one.
FactSet earlier_facts(const char* ld_library_path, const char* module_version = "580.159.04") {
  FactSet facts;
  facts.set("host.arch"_fact, std::string("x86_64"), "uname");
  if (ld_library_path) {
    facts.set("env.ld_library_path"_fact, std::string(ld_library_path), "env:LD_LIBRARY_PATH");
  } else {
    facts.set_absent("env.ld_library_path"_fact, "env:LD_LIBRARY_PATH");
  }
  facts.set_absent("env.ld_preload"_fact, "env:LD_PRELOAD");
  if (module_version) {
    facts.set("kmod.nvidia.version"_fact, std::string(module_version), "/proc/driver/nvidia/version");
  } else {
    facts.set_absent("kmod.nvidia.version"_fact, "/proc/driver/nvidia/version");
  }
  return facts;
}

FactSet run_on(const TempTree& tree, FactSet facts) {
  gd::RealHost host(tree.root(), {});
  gd::probe_libraries(host, gd::ProbeOptions{}, facts);
  return facts;
}

FactState state_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  return fact->state;
}

List list_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<List>(fact->value);
}

void install(const TempTree& tree, const std::string& dir, const std::string& version,
             std::string_view fixture = "libcuda.x86_64.so") {
  tree.file(dir + "/libcuda.so." + version, gd::test::elf_fixture(fixture));
  tree.link(dir + "/libcuda.so.1", "libcuda.so." + version);
  tree.link(dir + "/libcuda.so", "libcuda.so.1");
}

/// The H200 container of shared/fixtures/real/h200-container-580.159.04 (observations.md
/// "ldcache", "libs", "nvcc"): the driver's libraries mounted at /usr/local/nvidia/lib64, a
/// second libcuda.so.1 in /usr/lib (/lib on merged /usr), CUDA 13.0 with its stub and a
/// forward-compatibility libcuda 580.95.05 that no search path names, and the ld.so.conf.d
/// folders the cache listing shows (the file names are this test's own).
void make_h200_root(const TempTree& tree) {
  install(tree, "/usr/local/nvidia/lib64", "580.159.04");
  tree.file("/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04", gd::test::elf_fixture("libnvidia-ml.x86_64.so"));
  tree.link("/usr/local/nvidia/lib64/libnvidia-ml.so.1", "libnvidia-ml.so.580.159.04");
  tree.link("/usr/local/nvidia/lib64/libnvidia-ml.so", "libnvidia-ml.so.1");
  tree.link("/lib", "usr/lib");
  install(tree, "/usr/lib", "580.159.04");
  std::string targets = "/usr/local/cuda-13.0/targets/x86_64-linux/lib";
  tree.file(targets + "/stubs/libcuda.so", gd::test::elf_fixture("libcuda.x86_64.so"));
  tree.file(targets + "/libcudart.so.13.0.96", gd::test::elf_fixture("libcudart.x86_64.so"));
  tree.link(targets + "/libcudart.so.13", "libcudart.so.13.0.96");
  tree.link(targets + "/libcudart.so", "libcudart.so.13");
  install(tree, "/usr/local/cuda-13.0/compat", "580.95.05");
  tree.link("/usr/local/cuda", "cuda-13.0");
  tree.link("/usr/local/cuda-13", "cuda-13.0");
  tree.dir("/usr/lib/x86_64-linux-gnu");
  tree.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n");
  tree.file("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n");
  tree.file("/etc/ld.so.conf.d/988_cuda-13.conf", "/usr/local/cuda-13/targets/x86_64-linux/lib\n");
  tree.file("/etc/ld.so.conf.d/gpu.conf", "/usr/local/cuda-13.0/targets/x86_64-linux/lib\n");
  tree.file("/etc/ld.so.conf.d/nvidia.conf", "/usr/local/nvidia/lib64\n/usr/local/nvidia/lib\n");
  tree.file("/etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib\n");
  tree.file("/etc/ld.so.conf.d/z-cuda-lib64.conf", "/usr/local/cuda/lib64\n");
  tree.file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
            "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n");
}

}  // namespace

TEST_CASE("libraries: the H200 container, rebuilt with the real ldconfig", "[probes][libraries][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  TempTree tree;
  make_h200_root(tree);
  REQUIRE(gd::test::run_ldconfig(tree) == 0);
  FactSet facts = run_on(tree, earlier_facts(k_nvidia_llp));

  CHECK(facts.get_bool("lib.ldcache.readable"_fact) == true);
  CHECK(facts.get_string("lib.ldcache.format"_fact) == "new");
  // observations.md "ldcache": two libcuda.so.1 entries, the container's folder first.
  List cuda_entries;
  for (const std::string& line : list_of(facts, "lib.ldcache.entries"_fact)) {
    if (line.starts_with("libcuda.so.1 ")) {
      cuda_entries.push_back(line);
    }
  }
  CHECK(cuda_entries == List{"libcuda.so.1 (libc6,x86-64) => /usr/local/nvidia/lib64/libcuda.so.1",
                             "libcuda.so.1 (libc6,x86-64) => /lib/libcuda.so.1"});

  CHECK(facts.get_string("lib.libcuda.resolved"_fact) == "/usr/local/nvidia/lib64/libcuda.so.1");
  CHECK(facts.get_string("lib.libcuda.resolved_real"_fact) == "/usr/local/nvidia/lib64/libcuda.so.580.159.04");
  CHECK(facts.get_string("lib.libcuda.resolved_version"_fact) == "580.159.04");
  CHECK(facts.get_string("lib.libcuda.resolved_via"_fact) == "LD_LIBRARY_PATH");
  CHECK(facts.get_string("lib.libcuda.resolved_vs_module"_fact) == "same");
  CHECK(facts.get_bool("lib.libcuda.resolved_is_stub"_fact) == false);
  CHECK(facts.get_bool("lib.libcuda.resolved_is_compat"_fact) == false);
  CHECK(facts.get_string("lib.libnvidia_ml.resolved_version"_fact) == "580.159.04");
  CHECK(facts.get_string("lib.libnvidia_ml.resolved_vs_module"_fact) == "same");
  // One driver version on the search path; the compat copy is on no search path.
  CHECK(list_of(facts, "lib.libcuda.versions"_fact) == List{"580.159.04"});
  CHECK(facts.get_int("lib.libcuda.version_count"_fact) == 1);
  List copies = list_of(facts, "lib.libcuda.copies"_fact);
  CHECK(copies == List{"/usr/lib/libcuda.so.580.159.04 580.159.04",
                       "/usr/local/nvidia/lib64/libcuda.so.580.159.04 580.159.04"});
  CHECK(list_of(facts, "lib.libcudart.copies"_fact) ==
        List{"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96 13.0.96"});
  CHECK(list_of(facts, "lib.broken_links"_fact).empty());
  CHECK(list_of(facts, "lib.ld_library_path.unchecked"_fact).empty());
  List searched = list_of(facts, "lib.search_dirs"_fact);
  REQUIRE(searched.size() >= 3);
  CHECK(searched[0] == "LD_LIBRARY_PATH /usr/local/nvidia/lib64");
  CHECK(facts.get_bool("lib.nixos.opengl_driver_present"_fact) == false);
  CHECK(facts.get_bool("lib.wsl.present"_fact) == false);

  // Without LD_LIBRARY_PATH the cache decides, with the same file.
  FactSet plain = run_on(tree, earlier_facts(nullptr));
  CHECK(plain.get_string("lib.libcuda.resolved"_fact) == "/usr/local/nvidia/lib64/libcuda.so.1");
  CHECK(plain.get_string("lib.libcuda.resolved_via"_fact) == "ld.so.cache");
  CHECK(plain.get_string("lib.libcuda.resolved_vs_module"_fact) == "same");
}

TEST_CASE("libraries: a stubs folder on LD_LIBRARY_PATH", "[probes][libraries]") {
  TempTree tree;
  make_h200_root(tree);
  FactSet facts = run_on(tree, earlier_facts("/usr/local/cuda/lib64/stubs:/usr/local/cuda/targets/x86_64-linux/lib/stubs:/usr/local/nvidia/lib64"));
  // The toolkit's stub has no libcuda.so.1 of its own until ldconfig links one: add it.
  CHECK(facts.get_string("lib.libcuda.resolved"_fact) == "/usr/local/nvidia/lib64/libcuda.so.1");
  tree.link("/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so.1", "libcuda.so");
  facts = run_on(tree, earlier_facts("/usr/local/cuda/targets/x86_64-linux/lib/stubs:/usr/local/nvidia/lib64"));
  CHECK(facts.get_string("lib.libcuda.resolved"_fact) == "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so.1");
  CHECK(facts.get_string("lib.libcuda.resolved_real"_fact) == "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so");
  CHECK(facts.get_bool("lib.libcuda.resolved_is_stub"_fact) == true);
  CHECK(state_of(facts, "lib.libcuda.resolved_version"_fact) == FactState::unknown);
  CHECK(list_of(facts, "lib.libcuda.versions"_fact) == List{"580.159.04"});  // the stub has no driver version
  List copies = list_of(facts, "lib.libcuda.copies"_fact);
  CHECK(std::find(copies.begin(), copies.end(), "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so unknown (stub)") !=
        copies.end());
}

TEST_CASE("libraries: a forward-compatibility libcuda older than the module", "[probes][libraries]") {
  TempTree tree;
  make_h200_root(tree);
  FactSet facts = run_on(tree, earlier_facts("/usr/local/cuda/compat:/usr/local/nvidia/lib64"));
  CHECK(facts.get_string("lib.libcuda.resolved_real"_fact) == "/usr/local/cuda-13.0/compat/libcuda.so.580.95.05");
  CHECK(facts.get_bool("lib.libcuda.resolved_is_compat"_fact) == true);
  CHECK(facts.get_string("lib.libcuda.resolved_version"_fact) == "580.95.05");
  CHECK(facts.get_string("lib.libcuda.resolved_vs_module"_fact) == "older");
  CHECK(list_of(facts, "lib.libcuda.versions"_fact) == List{"580.159.04"});  // compat copies are left out

  facts = run_on(tree, earlier_facts("/usr/local/cuda/compat", "570.172.08"));
  CHECK(facts.get_string("lib.libcuda.resolved_vs_module"_fact) == "newer");
  facts = run_on(tree, earlier_facts("/usr/local/cuda/compat", nullptr));
  CHECK(state_of(facts, "lib.libcuda.resolved_vs_module"_fact) == FactState::absent);
}

TEST_CASE("libraries: two driver versions, LD_LIBRARY_PATH shadowing the driver", "[probes][libraries]") {
  TempTree tree;
  install(tree, "/usr/lib/x86_64-linux-gnu", "580.159.04");
  install(tree, "/opt/old-driver/lib", "535.183.01");
  tree.file("/etc/ld.so.conf", "/usr/lib/x86_64-linux-gnu\n");
  FactSet facts = run_on(tree, earlier_facts("/opt/old-driver/lib"));
  CHECK(facts.get_string("lib.libcuda.resolved_via"_fact) == "LD_LIBRARY_PATH");
  CHECK(facts.get_string("lib.libcuda.resolved_version"_fact) == "535.183.01");
  CHECK(facts.get_string("lib.libcuda.resolved_vs_module"_fact) == "older");
  CHECK(list_of(facts, "lib.libcuda.versions"_fact) == List{"535.183.01", "580.159.04"});
  CHECK(facts.get_int("lib.libcuda.version_count"_fact) == 2);
  // No cache in this root: the loader's default folders decide without LD_LIBRARY_PATH.
  CHECK(facts.get_bool("lib.ldcache.readable"_fact) == false);
  FactSet plain = run_on(tree, earlier_facts(nullptr));
  CHECK(plain.get_string("lib.libcuda.resolved_via"_fact) == "default");
  CHECK(plain.get_string("lib.libcuda.resolved_version"_fact) == "580.159.04");
}

TEST_CASE("libraries: no driver libraries at all, broken links, 32-bit copies", "[probes][libraries]") {
  TempTree tree;
  tree.dir("/usr/lib/x86_64-linux-gnu");
  tree.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.570.86.15");  // the driver package was removed
  install(tree, "/usr/lib/i386-linux-gnu", "580.159.04", "libcuda.i386.so");
  tree.file("/etc/ld.so.conf", "/usr/lib/i386-linux-gnu\n");
  FactSet facts = run_on(tree, earlier_facts(nullptr));
  CHECK(state_of(facts, "lib.libcuda.resolved"_fact) == FactState::absent);
  CHECK(facts.get_string("lib.libcuda.resolved_via"_fact) == "none");
  CHECK(state_of(facts, "lib.libcuda.resolved_version"_fact) == FactState::absent);
  CHECK(state_of(facts, "lib.libcuda.resolved_is_stub"_fact) == FactState::absent);
  CHECK(list_of(facts, "lib.broken_links"_fact) == List{"/usr/lib/x86_64-linux-gnu/libcuda.so.1 -> libcuda.so.570.86.15"});
  CHECK(list_of(facts, "lib.libcuda.versions"_fact).empty());
  CHECK(facts.get_int("lib.libcuda.version_count"_fact) == 0);
  CHECK(list_of(facts, "lib.libcuda.copies"_fact) ==
        List{"/usr/lib/i386-linux-gnu/libcuda.so.580.159.04 580.159.04 (ELF32 i386, not loadable here)"});
}

namespace {

// WSL2: plain copies (not links) in /usr/lib/wsl/lib, listed by /etc/ld.so.conf.d/ld.wsl.conf.
void make_wsl_root(const TempTree& wsl) {
  for (const char* name : {"libcuda.so", "libcuda.so.1", "libcuda.so.1.1"}) {
    wsl.file(std::string("/usr/lib/wsl/lib/") + name, gd::test::elf_fixture("libcuda.x86_64.so"));
  }
  wsl.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  wsl.file("/etc/ld.so.conf.d/ld.wsl.conf", "# This file was automatically generated by WSL.\n/usr/lib/wsl/lib\n");
}

}  // namespace

TEST_CASE("libraries: NixOS and WSL2 keep the driver elsewhere", "[probes][libraries]") {
  TempTree nixos;
  install(nixos, "/nix/store/abc-nvidia-x11-580.159.04/lib", "580.159.04");
  nixos.link("/run/opengl-driver", "/nix/store/def-graphics-drivers");
  nixos.link("/nix/store/def-graphics-drivers/lib/libcuda.so.1", "/nix/store/abc-nvidia-x11-580.159.04/lib/libcuda.so.1");
  FactSet facts = run_on(nixos, earlier_facts(nullptr));
  CHECK(facts.get_bool("lib.nixos.opengl_driver_present"_fact) == true);
  CHECK(state_of(facts, "lib.libcuda.resolved"_fact) == FactState::absent);  // no cache, no /lib: not found
  CHECK(list_of(facts, "lib.libcuda.copies"_fact) == List{"/nix/store/abc-nvidia-x11-580.159.04/lib/libcuda.so.580.159.04 580.159.04"});
  facts = run_on(nixos, earlier_facts("/run/opengl-driver/lib"));
  CHECK(facts.get_string("lib.libcuda.resolved_version"_fact) == "580.159.04");

  TempTree wsl;
  make_wsl_root(wsl);
  facts = run_on(wsl, earlier_facts(nullptr, nullptr));
  CHECK(facts.get_bool("lib.wsl.present"_fact) == true);
  CHECK(list_of(facts, "lib.libcuda.copies"_fact).size() == 3);
  CHECK(list_of(facts, "lib.libcuda.versions"_fact).empty());
}

TEST_CASE("libraries: WSL2's folder through a cache the real ldconfig wrote", "[probes][libraries][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  TempTree wsl;
  make_wsl_root(wsl);
  REQUIRE(gd::test::run_ldconfig(wsl) == 0);
  FactSet facts = run_on(wsl, earlier_facts(nullptr, nullptr));
  CHECK(facts.get_string("lib.libcuda.resolved"_fact) == "/usr/lib/wsl/lib/libcuda.so.1");
  CHECK(facts.get_string("lib.libcuda.resolved_via"_fact) == "ld.so.cache");
  CHECK(state_of(facts, "lib.libcuda.resolved_version"_fact) == FactState::unknown);  // "libcuda.so.1" carries none
}

TEST_CASE("libraries: what cannot be told is unknown", "[probes][libraries]") {
  gd::Capture capture;
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths["/etc/ld.so.cache"].read = std::unexpected(gd::IoError{EACCES});
  gd::ReplayHost host(capture);
  FactSet facts = earlier_facts("$ORIGIN/../lib");
  gd::probe_libraries(host, gd::ProbeOptions{}, facts);
  const gd::Fact* resolved = facts.find("lib.libcuda.resolved"_fact);
  REQUIRE(resolved);
  CHECK(resolved->state == FactState::unknown);
  CHECK_THAT(resolved->reason, Catch::Contains("needs root"));
  CHECK(state_of(facts, "lib.ldcache.readable"_fact) == FactState::unknown);
  CHECK(list_of(facts, "lib.ld_library_path.unchecked"_fact) == List{"$ORIGIN/../lib"});
}

TEST_CASE("libraries: the captured H200 container", "[probes][libraries]") {
  gd::ReplayHost host(gd::test::host_capture("h200-container-580.159.04"));
  FactSet facts = earlier_facts(k_nvidia_llp);
  gd::probe_libraries(host, gd::ProbeOptions{}, facts);
  CHECK(facts.get_string("lib.libcuda.resolved"_fact) == "/usr/local/nvidia/lib64/libcuda.so.1");
  CHECK(facts.get_string("lib.libcuda.resolved_real"_fact) == "/usr/local/nvidia/lib64/libcuda.so.580.159.04");
  CHECK(facts.get_string("lib.libcuda.resolved_version"_fact) == "580.159.04");
  CHECK(facts.get_string("lib.libcuda.resolved_via"_fact) == "LD_LIBRARY_PATH");
  CHECK(facts.get_string("lib.libcuda.resolved_vs_module"_fact) == "same");
  CHECK(facts.get_bool("lib.libcuda.resolved_is_compat"_fact) == false);
  CHECK(list_of(facts, "lib.libcuda.versions"_fact) == List{"580.159.04"});
  // The observation gives no ld.so.cache bytes: the capture has none, the prediction does not need it.
  CHECK(facts.get_bool("lib.ldcache.readable"_fact) == false);
  // libnvidia-ml.so.1 is listed by the observed cache, but where it links to is not recorded.
  CHECK(state_of(facts, "lib.libnvidia_ml.resolved_version"_fact) == FactState::unknown);
}

TEST_CASE("libraries: a driver library that is there but cannot be loaded", "[probes][libraries]") {
  // As on the H200 with an empty file bind-mounted over libcuda.so.580.159.04 (and, separately,
  // over the PTX JIT compiler): the links lead to 0 bytes.
  TempTree tree;
  const std::string dir = "/usr/local/nvidia/lib64";
  tree.file(dir + "/libcuda.so.580.159.04", "");
  tree.link(dir + "/libcuda.so.1", "libcuda.so.580.159.04");
  tree.file(dir + "/libnvidia-ml.so.580.159.04", gd::test::elf_fixture("libnvidia-ml.x86_64.so"));
  tree.link(dir + "/libnvidia-ml.so.1", "libnvidia-ml.so.580.159.04");
  tree.file(dir + "/libnvidia-ptxjitcompiler.so.580.159.04", gd::test::elf_fixture("libcuda.x86_64.so").substr(0, 300));
  tree.link(dir + "/libnvidia-ptxjitcompiler.so.1", "libnvidia-ptxjitcompiler.so.580.159.04");
  FactSet facts = run_on(tree, earlier_facts(k_nvidia_llp));

  CHECK(facts.get_string("lib.libcuda.unloadable"_fact) == "empty");
  CHECK(facts.get_string("lib.libcuda.unloadable_path"_fact) == dir + "/libcuda.so.1");
  CHECK(facts.get_int("lib.libcuda.unloadable_size"_fact) == 0);
  CHECK(facts.get_string("lib.libcuda.unloadable_text"_fact) ==
        "the file is empty: the loader stops there with \"file too short\" (its links lead to "
        "/usr/local/nvidia/lib64/libcuda.so.580.159.04)");
  // Not "in none of the folders": the file is there.
  REQUIRE(state_of(facts, "lib.libcuda.resolved"_fact) == FactState::absent);
  CHECK(facts.find("lib.libcuda.resolved"_fact)->reason.find("is where the loader looks, but it cannot be loaded") != std::string::npos);
  CHECK(list_of(facts, "lib.libcuda.versions"_fact).empty());  // an empty copy has no driver version to count
  CHECK(list_of(facts, "lib.libcuda.copies"_fact) == List{dir + "/libcuda.so.580.159.04 580.159.04 (empty)"});
  // NVML is whole: nothing to report for it.
  CHECK(state_of(facts, "lib.libnvidia_ml.unloadable"_fact) == FactState::absent);
  CHECK(facts.get_string("lib.libnvidia_ml.resolved"_fact) == dir + "/libnvidia-ml.so.1");
  // The JIT compiler cut inside its program headers.
  CHECK(facts.get_string("lib.libnvidia_ptxjitcompiler.unloadable"_fact) == "program-headers-cut");
  CHECK(facts.get_int("lib.libnvidia_ptxjitcompiler.unloadable_size"_fact) == 300);
}

TEST_CASE("libraries: no file at all is not an unloadable one", "[probes][libraries]") {
  TempTree tree;
  tree.dir("/usr/local/nvidia/lib64");
  FactSet facts = run_on(tree, earlier_facts(k_nvidia_llp));
  CHECK(state_of(facts, "lib.libcuda.unloadable"_fact) == FactState::absent);
  CHECK(state_of(facts, "lib.libnvidia_ptxjitcompiler.unloadable"_fact) == FactState::absent);
  CHECK(facts.find("lib.libcuda.resolved"_fact)->reason == "libcuda.so.1 is in none of the folders the loader searches");
}

}  // namespace GD_UNITY_ID
