#include <catch2/catch.hpp>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "probes/driver/firmware.hpp"
#include "probes/driver/nvidia_module.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;

namespace {

using Names = std::vector<std::string>;

/// The facts the pci and nvidia_module probes give the firmware probe: one GPU of
/// `architecture` needing `gsp_file`, and the loaded module `version` whose GPU shows
/// `gpu_firmware` (empty: no GPU Firmware line).
FactSet before_firmware(const std::string& architecture, const std::string& gsp_file, const std::string& version,
                        const std::string& gpu_firmware) {
  FactSet facts;
  facts.set("pci.gpu.0.architecture"_fact, architecture);
  facts.set("pci.gpu.0.driver"_fact, std::string("nvidia"));
  if (gsp_file.empty()) {
    facts.set_absent("pci.gpu.0.gsp_firmware_file"_fact);
  } else {
    facts.set("pci.gpu.0.gsp_firmware_file"_fact, gsp_file);
  }
  facts.set("kmod.nvidia.loaded"_fact, true);
  facts.set("kmod.nvidia.version"_fact, version);
  facts.set("kmod.nvidia.gpu_count"_fact, std::int64_t{1});
  facts.set("kmod.nvidia.gpu_firmware_versions"_fact, gpu_firmware.empty() ? Names{} : Names{gpu_firmware});
  return facts;
}

Names list(const FactSet& facts, gd::FactName name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<Names>(fact->value);
}

void run(const TempTree& tree, FactSet& facts) {
  gd::RealHost host(tree.root(), {});
  gd::probe_gsp_firmware(host, gd::ProbeOptions{}, facts);
}

}  // namespace

TEST_CASE("firmware search folders in the kernel's order", "[probes][firmware]") {
  CHECK(gd::firmware_search_dirs("", "6.8.0-45-generic") == Names{"/lib/firmware/updates/6.8.0-45-generic",
                                                                  "/lib/firmware/updates",
                                                                  "/lib/firmware/6.8.0-45-generic", "/lib/firmware"});
  CHECK(gd::firmware_search_dirs("/run/current-system/firmware/\n", "6.12.1").front() ==
        "/run/current-system/firmware");
}

TEST_CASE("GSP file per family and driver branch", "[probes][firmware]") {
  // 530 and later: the pci probe's answer; Blackwell is always gsp_ga10x.bin.
  CHECK(gd::gsp_file_for("580.159.04", "Hopper", "gsp_ga10x.bin") == "gsp_ga10x.bin");
  CHECK(gd::gsp_file_for("580.159.04", "Turing", "gsp_tu10x.bin") == "gsp_tu10x.bin");
  CHECK(gd::gsp_file_for("570.86.15", "Blackwell", "gsp_tu10x.bin") == "gsp_ga10x.bin");
  CHECK(gd::gsp_file_for("595.45.04", "Blackwell", "") == "gsp_ga10x.bin");
  // 525: Ada had its own file, everything else used gsp_tu10x.bin; 515-520: gsp.bin.
  CHECK(gd::gsp_file_for("525.147.05", "Ada", "gsp_ga10x.bin") == "gsp_ad10x.bin");
  CHECK(gd::gsp_file_for("525.147.05", "Ampere", "gsp_ga10x.bin") == "gsp_tu10x.bin");
  CHECK(gd::gsp_file_for("520.61.05", "Ampere", "gsp_ga10x.bin") == "gsp.bin");
  CHECK_FALSE(gd::gsp_file_for("510.108.03", "Ampere", "gsp_ga10x.bin"));
}

TEST_CASE("firmware loaded by every GPU", "[probes][firmware]") {
  CHECK(gd::firmware_loaded_by_all("580.159.04", {"580.159.04"}, 1));
  CHECK_FALSE(gd::firmware_loaded_by_all("580.159.04", {"580.159.04"}, 2));
  CHECK_FALSE(gd::firmware_loaded_by_all("580.159.04", {"570.124.06"}, 1));
  CHECK_FALSE(gd::firmware_loaded_by_all("580.159.04", {}, 0));
}

TEST_CASE("firmware: folder present and complete", "[probes][firmware]") {
  TempTree tree;
  tree.file("/lib/firmware/nvidia/580.159.04/gsp_ga10x.bin", "GSP");
  tree.file("/lib/firmware/nvidia/580.159.04/gsp_tu10x.bin", "GSP");
  FactSet facts = before_firmware("Hopper", "gsp_ga10x.bin", "580.159.04", "580.159.04");
  run(tree, facts);
  CHECK(facts.get_string("firmware.version_dir"_fact) == "/lib/firmware/nvidia/580.159.04");
  CHECK(facts.get_string("firmware.expected_dir"_fact) == "/lib/firmware/nvidia/580.159.04");
  CHECK(list(facts, "firmware.needed_files"_fact) == Names{"gsp_ga10x.bin"});
  CHECK(list(facts, "firmware.found_files"_fact) == Names{"/lib/firmware/nvidia/580.159.04/gsp_ga10x.bin"});
  CHECK(list(facts, "firmware.missing_files"_fact).empty());
  CHECK(facts.get_bool("firmware.loaded_by_gpus"_fact) == true);
}

TEST_CASE("firmware: Blackwell needs gsp_ga10x.bin only", "[probes][firmware]") {
  TempTree tree;
  tree.file("/lib/firmware/nvidia/575.57.08/gsp_ga10x.bin", "GSP");
  tree.file("/lib/firmware/nvidia/575.57.08/gsp_tu10x.bin", "GSP");
  // Even if a wrong table said tu10x, the Blackwell GPU is checked for gsp_ga10x.bin.
  FactSet facts = before_firmware("Blackwell", "gsp_ga10x.bin", "575.57.08", "");
  run(tree, facts);
  CHECK(list(facts, "firmware.needed_files"_fact) == Names{"gsp_ga10x.bin"});
  CHECK(list(facts, "firmware.missing_files"_fact).empty());
  CHECK(facts.get_bool("firmware.loaded_by_gpus"_fact) == false);
}

TEST_CASE("firmware: only another version's folder", "[probes][firmware]") {
  TempTree tree;
  tree.file("/lib/firmware/nvidia/570.124.06/gsp_ga10x.bin", "GSP");
  tree.file("/lib/firmware/nvidia/570.124.06/gsp_tu10x.bin", "GSP");
  FactSet facts = before_firmware("Blackwell", "gsp_ga10x.bin", "580.65.06", "");
  run(tree, facts);
  CHECK(facts.find("firmware.version_dir"_fact)->state == FactState::absent);
  CHECK(list(facts, "firmware.missing_files"_fact) == Names{"gsp_ga10x.bin"});
  CHECK(list(facts, "firmware.other_versions"_fact) == Names{"/lib/firmware/nvidia/570.124.06"});
  CHECK(facts.get_string("firmware.expected_dir"_fact) == "/lib/firmware/nvidia/580.65.06");
}

TEST_CASE("firmware: updates folder, compressed files and firmware_class.path", "[probes][firmware]") {
  TempTree tree;
  tree.file("/sys/module/firmware_class/parameters/path", "/run/current-system/firmware\n");
  tree.file("/run/current-system/firmware/nvidia/580.65.06/gsp_tu10x.bin.xz", "XZ");
  tree.file("/lib/firmware/updates/nvidia/580.65.06/gsp_ga10x.bin.zst", "ZSTD");
  FactSet facts = before_firmware("Ampere", "gsp_ga10x.bin", "580.65.06", "580.65.06");
  facts.set("pci.gpu.1.architecture"_fact, std::string("Turing"));
  facts.set("pci.gpu.1.gsp_firmware_file"_fact, std::string("gsp_tu10x.bin"));
  run(tree, facts);
  CHECK(facts.get_string("firmware.class_path"_fact) == "/run/current-system/firmware");
  CHECK(list(facts, "firmware.search_dirs"_fact).front() == "/run/current-system/firmware");
  CHECK(facts.get_string("firmware.version_dir"_fact) == "/run/current-system/firmware/nvidia/580.65.06");
  CHECK(facts.get_string("firmware.expected_dir"_fact) == "/run/current-system/firmware/nvidia/580.65.06");
  CHECK(list(facts, "firmware.needed_files"_fact) == Names{"gsp_ga10x.bin", "gsp_tu10x.bin"});
  CHECK(list(facts, "firmware.found_files"_fact) == Names{"/lib/firmware/updates/nvidia/580.65.06/gsp_ga10x.bin.zst",
                                                     "/run/current-system/firmware/nvidia/580.65.06/gsp_tu10x.bin.xz"});
  CHECK(list(facts, "firmware.missing_files"_fact).empty());
}

TEST_CASE("firmware: a GPU given to vfio-pci needs nothing, pre-Turing neither", "[probes][firmware]") {
  TempTree tree;
  FactSet facts = before_firmware("Pascal", "", "570.124.06", "");
  facts.set("pci.gpu.1.architecture"_fact, std::string("Ampere"));
  facts.set("pci.gpu.1.driver"_fact, std::string("vfio-pci"));
  facts.set("pci.gpu.1.gsp_firmware_file"_fact, std::string("gsp_ga10x.bin"));
  run(tree, facts);
  CHECK(list(facts, "firmware.needed_files"_fact).empty());
  CHECK(list(facts, "firmware.missing_files"_fact).empty());
}

TEST_CASE("firmware: a passthrough host with every GPU on vfio-pci needs nothing", "[probes][firmware]") {
  // The nvidia module may be loaded for no GPU at all: no firmware is needed (not "unknown").
  TempTree tree;
  FactSet facts = before_firmware("Hopper", "gsp_ga10x.bin", "580.159.04", "");
  facts.set("pci.gpu.0.driver"_fact, std::string("vfio-pci"));
  facts.set("kmod.nvidia.gpu_count"_fact, std::int64_t{0});
  run(tree, facts);
  CHECK(list(facts, "firmware.needed_files"_fact).empty());
  CHECK(list(facts, "firmware.missing_files"_fact).empty());
}

TEST_CASE("firmware: without GPU families the need is unknown", "[probes][firmware]") {
  TempTree tree;
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, true);
  facts.set("kmod.nvidia.version"_fact, std::string("580.159.04"));
  run(tree, facts);
  const gd::Fact* missing = facts.find("firmware.missing_files"_fact);
  REQUIRE(missing);
  CHECK(missing->state == FactState::unknown);
  CHECK_THAT(missing->reason, Catch::Contains("gsp_firmware_file"));
  CHECK(facts.find("firmware.loaded_by_gpus"_fact)->state == FactState::unknown);
}

TEST_CASE("firmware: module not loaded", "[probes][firmware]") {
  TempTree tree;
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, false);
  facts.set_absent("kmod.nvidia.version"_fact);
  run(tree, facts);
  CHECK(facts.find("firmware.missing_files"_fact)->state == FactState::absent);
  CHECK(facts.find("firmware.loaded_by_gpus"_fact)->state == FactState::absent);
  CHECK(list(facts, "firmware.search_dirs"_fact).size() == 4);
}

TEST_CASE("firmware: the healthy H200 container has no folder but runs the firmware", "[probes][firmware]") {
  gd::ReplayHost host(gd::test::host_capture("h200-container-580.159.04"));
  FactSet facts;
  // What the pci probe says of the H200 (10de:2335, GH100: gsp_ga10x.bin).
  facts.set("pci.gpu.0.architecture"_fact, std::string("Hopper"));
  facts.set("pci.gpu.0.driver"_fact, std::string("nvidia"));
  facts.set("pci.gpu.0.gsp_firmware_file"_fact, std::string("gsp_ga10x.bin"));
  gd::probe_nvidia_module(host, gd::ProbeOptions{}, facts);
  gd::probe_gsp_firmware(host, gd::ProbeOptions{}, facts);
  CHECK(facts.find("firmware.version_dir"_fact)->state == FactState::absent);
  CHECK(list(facts, "firmware.missing_files"_fact) == Names{"gsp_ga10x.bin"});
  CHECK(facts.get_bool("firmware.loaded_by_gpus"_fact) == true);
}

}  // namespace GD_UNITY_ID
