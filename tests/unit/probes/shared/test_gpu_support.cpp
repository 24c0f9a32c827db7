#include "probes/shared/gpu_support.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fact_access.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::list_of;
using gd::test::state_of;

namespace {

using Names = std::vector<std::string>;

/// One GPU as the pci probe records it; `min` empty: the table records no first release.
void add_gpu(FactSet& facts, int n, const std::string& bus, const std::string& id, const std::string& chip,
             const std::string& driver, const std::string& min) {
  const std::string gpu = "pci.gpu." + std::to_string(n);
  facts.set(gd::FactName::unchecked(gpu + ".bus_id"), bus);
  facts.set(gd::FactName::unchecked(gpu + ".device_id"), id);
  facts.set(gd::FactName::unchecked(gpu + ".chip"), chip);
  facts.set(gd::FactName::unchecked(gpu + ".driver"), driver);
  if (min.empty()) {
    facts.set_absent(gd::FactName::unchecked(gpu + ".min_driver_version"));
  } else {
    facts.set(gd::FactName::unchecked(gpu + ".min_driver_version"), min);
  }
}

FactSet loaded(const std::string& version, const Names& listed) {
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, true);
  facts.set("kmod.nvidia.version"_fact, version);
  facts.set("kmod.nvidia.gpus"_fact, listed);
  facts.set_absent("kmod.nvidia.disk_version"_fact);
  return facts;
}

FactSet not_loaded(const std::string& disk_version) {
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, false);
  facts.set_absent("kmod.nvidia.version"_fact);
  facts.set_absent("kmod.nvidia.gpus"_fact);
  if (disk_version.empty()) {
    facts.set_absent("kmod.nvidia.disk_version"_fact);
  } else {
    facts.set("kmod.nvidia.disk_version"_fact, disk_version);
  }
  return facts;
}

}  // namespace

TEST_CASE("driver versions compare numerically, dot by dot", "[probes][gpu_support]") {
  CHECK(gd::compare_driver_versions("570.124.04", "570.86.16") == 1);
  CHECK(gd::compare_driver_versions("580.65.06", "580.82.07") == -1);
  CHECK(gd::compare_driver_versions("580.82.07", "580.82.07") == 0);
  CHECK(gd::compare_driver_versions("580", "580.0.0") == 0);
  CHECK(gd::compare_driver_versions("575.64", "575.64.03") == -1);
  CHECK_FALSE(gd::compare_driver_versions("", "580.82.07"));
  CHECK_FALSE(gd::compare_driver_versions("580.x", "580.82.07"));
  CHECK_FALSE(gd::compare_driver_versions("580..1", "580.82.07"));
}

TEST_CASE("a GPU the driver holds is supported whatever the table says", "[probes][gpu_support]") {
  // B300 on 580.65.06 (older than its first README, 580.82.07), bound and listed: the driver
  // accepted the chip, so nothing is too new (a healthy B300 on R580 was told to install 590).
  FactSet facts = loaded("580.65.06", {"0000:1b:00.0 NVIDIA B300 SXM6 AC", "0000:9b:00.0 NVIDIA H100 80GB HBM3"});
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{2});
  add_gpu(facts, 0, "0000:1b:00.0", "3182", "GB110", "nvidia", "580.82.07");
  add_gpu(facts, 1, "0000:9b:00.0", "2330", "GH100", "nvidia", "");
  gd::record_gpu_support(facts);
  CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact).empty());
  CHECK(state_of(facts, "kmod.nvidia.needed_version"_fact) == FactState::absent);
}

TEST_CASE("a GPU the loaded driver refused is judged by its first release", "[probes][gpu_support]") {
  FactSet facts = loaded("580.65.06", {"0000:9b:00.0 NVIDIA H100 80GB HBM3"});
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{2});
  add_gpu(facts, 0, "0000:1b:00.0", "3182", "GB110", "none", "580.82.07");
  add_gpu(facts, 1, "0000:9b:00.0", "2330", "GH100", "nvidia", "");
  gd::record_gpu_support(facts);
  CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact) ==
        Names{"0000:1b:00.0 10de:3182 GB110 (first supported by 580.82.07)"});
  CHECK(facts.get_string("kmod.nvidia.needed_version"_fact) == "580.82.07");
  CHECK(facts.get_int("kmod.nvidia.needed_branch"_fact) == 580);

  SECTION("a release at or past the first one: refused for another reason, not too old") {
    FactSet newer = loaded("580.95.05", {});
    newer.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
    add_gpu(newer, 0, "0000:1b:00.0", "3182", "GB110", "none", "580.82.07");
    gd::record_gpu_support(newer);
    CHECK(list_of(newer, "kmod.nvidia.gpus_too_new"_fact).empty());
  }
}

TEST_CASE("without a loaded module the one on disk is judged", "[probes][gpu_support]") {
  FactSet facts = not_loaded("565.77");
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{2});
  add_gpu(facts, 0, "0000:01:00.0", "2b85", "GB202", "none", "570.86.16");
  add_gpu(facts, 1, "0000:02:00.0", "2d05", "GB206", "nouveau", "570.158.01");
  gd::record_gpu_support(facts);
  CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact) ==
        Names{"0000:01:00.0 10de:2b85 GB202 (first supported by 570.86.16)",
              "0000:02:00.0 10de:2d05 GB206 (first supported by 570.158.01)"});
  CHECK(facts.get_string("kmod.nvidia.needed_version"_fact) == "570.158.01");

  SECTION("no module installed at all: not a question of its release") {
    FactSet none = not_loaded("");
    none.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
    add_gpu(none, 0, "0000:01:00.0", "2b85", "GB202", "none", "570.86.16");
    gd::record_gpu_support(none);
    CHECK(list_of(none, "kmod.nvidia.gpus_too_new"_fact).empty());
  }
}

TEST_CASE("GPUs handed to a VM and GPUs without a recorded first release do not count", "[probes][gpu_support]") {
  FactSet facts = loaded("570.172.08", {"0000:9b:00.0 NVIDIA H100 80GB HBM3"});
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{4});
  add_gpu(facts, 0, "0000:1b:00.0", "3182", "GB110", "vfio-pci", "580.82.07");
  add_gpu(facts, 1, "0000:2b:00.0", "31c2", "GB110", "nvgrace-gpu-vfio-pci", "580.82.07");
  add_gpu(facts, 2, "0000:3b:00.0", "1db6", "GV100", "none", "");
  add_gpu(facts, 3, "0000:9b:00.0", "2330", "GH100", "nvidia", "");
  gd::record_gpu_support(facts);
  CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact).empty());
}

TEST_CASE("in a container the host's binding counts, not the filtered GPU list", "[probes][gpu_support]") {
  // The container sees only its own GPU under /proc/driver/nvidia/gpus; /sys shows every GPU of
  // the host, each bound to nvidia there.
  FactSet facts = loaded("570.133.07", {"0000:01:00.0 NVIDIA GeForce RTX 5090"});
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{2});
  add_gpu(facts, 0, "0000:01:00.0", "2b85", "GB202", "nvidia", "570.86.16");
  add_gpu(facts, 1, "0000:02:00.0", "2d05", "GB206", "nvidia", "570.158.01");
  gd::record_gpu_support(facts);
  CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact).empty());
}

TEST_CASE("what cannot be told stays unknown", "[probes][gpu_support]") {
  SECTION("the driver link is unreadable and the driver does not list the GPU (it may be on vfio-pci)") {
    FactSet facts = loaded("570.86.16", {});
    facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
    add_gpu(facts, 0, "0000:01:00.0", "2d05", "GB206", "none", "570.158.01");
    facts.set_unknown("pci.gpu.0.driver"_fact, "EACCES");
    gd::record_gpu_support(facts);
    CHECK(state_of(facts, "kmod.nvidia.gpus_too_new"_fact) == FactState::unknown);
  }
  SECTION("the driver link is unreadable but the driver lists the GPU") {
    FactSet facts = loaded("570.86.16", {"0000:01:00.0 NVIDIA GeForce RTX 5060"});
    facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
    add_gpu(facts, 0, "0000:01:00.0", "2d05", "GB206", "none", "570.158.01");
    facts.set_unknown("pci.gpu.0.driver"_fact, "EACCES");
    gd::record_gpu_support(facts);
    CHECK(list_of(facts, "kmod.nvidia.gpus_too_new"_fact).empty());
  }
  SECTION("the loaded version is unknown") {
    FactSet facts = loaded("570.86.16", {});
    facts.set_unknown("kmod.nvidia.version"_fact, "no /proc/driver/nvidia/version");
    facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
    add_gpu(facts, 0, "0000:01:00.0", "2d05", "GB206", "none", "570.158.01");
    gd::record_gpu_support(facts);
    CHECK(state_of(facts, "kmod.nvidia.gpus_too_new"_fact) == FactState::unknown);
    CHECK(state_of(facts, "kmod.nvidia.needed_version"_fact) == FactState::unknown);
  }
  SECTION("the PCI bus could not be read") {
    FactSet facts = loaded("570.86.16", {});
    facts.set_unknown("pci.nvidia_gpu_count"_fact, "EACCES");
    gd::record_gpu_support(facts);
    CHECK(state_of(facts, "kmod.nvidia.gpus_too_new"_fact) == FactState::unknown);
  }
}

}  // namespace GD_UNITY_ID
