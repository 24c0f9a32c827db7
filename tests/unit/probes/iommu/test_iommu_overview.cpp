// The iommu layer's overview line (probes/iommu/iommu_overview.cpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/all_layers.hpp"
#include "core/fact_key.hpp"
#include "probes/iommu/iommu_overview.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::AreaStatus;
using gd::FactSet;
using List = std::vector<std::string>;
using namespace gd::fact_literals;

namespace {

const gd::Layer& iommu_layer() { return gd::layer_named("iommu"); }

FactSet node(std::int64_t gpus, bool iommu_on, std::int64_t checked, std::int64_t redirecting) {
  FactSet facts;
  facts.set("pci.nvidia_gpu_count"_fact, gpus);
  facts.set("virt.hypervisor"_fact, std::string("none"));
  facts.set("iommu.active"_fact, iommu_on);
  facts.set("iommu.gpu_domain_types"_fact, iommu_on ? List{"DMA-FQ"} : List{});
  facts.set("iommu.translating_gpu_count"_fact, iommu_on ? gpus : std::int64_t{0});
  facts.set("acs.bridges_checked"_fact, checked);
  facts.set("acs.redirect_bridge_count"_fact, redirecting);
  List bridges;
  for (std::int64_t i = 0; i < redirecting; ++i) bridges.push_back("bridge " + std::to_string(i));
  facts.set("acs.redirect_bridges"_fact, bridges);
  facts.set("iommu.faulted_gpus"_fact, List{});
  return facts;
}

std::string summary(const FactSet& facts) { return gd::areas::iommu_overview_line(iommu_layer(), facts, {}).summary; }

}  // namespace

TEST_CASE("iommu line: the IOMMU's mode and the ACS redirects between the GPUs", "[report][areas][iommu]") {
  CHECK(summary(node(8, false, 6, 0)) == "IOMMU off; 0 of 6 bridges between GPUs redirect");
  gd::AreaLine translating = gd::areas::iommu_overview_line(iommu_layer(), node(8, true, 16, 4), {});
  CHECK(translating.summary == "IOMMU translating for 8 GPUs (DMA-FQ); ACS redirect on 4 bridges between GPUs");
  CHECK(translating.details.size() == 4);
  CHECK(translating.status == AreaStatus::ok);  // the rule's finding colours it, not the line

  FactSet passthrough = node(8, true, 16, 0);
  passthrough.set("iommu.gpu_domain_types"_fact, List{"identity"});
  passthrough.set("iommu.translating_gpu_count"_fact, std::int64_t{0});
  CHECK(summary(passthrough) == "IOMMU on, GPUs in identity domains; 0 of 16 bridges between GPUs redirect");

  FactSet vm = node(2, false, 0, 0);
  vm.set("virt.hypervisor"_fact, std::string("kvm"));
  CHECK(summary(vm) == "IOMMU off; no bridge between the GPUs; in a VM: its bridges are virtual");
}

TEST_CASE("iommu line: one GPU, not root, faults", "[report][areas][iommu]") {
  CHECK(summary(node(1, false, 0, 0)) == "IOMMU off; 1 GPU: no peer path");

  FactSet user = node(8, true, 16, 0);
  std::string reason = "ACS not read on 0000:10:00.0: needs root (only 64 bytes of /sys/bus/pci/devices/0000:10:00.0/config readable)";
  user.set_unknown("acs.redirect_bridges"_fact, reason);
  user.set_unknown("acs.redirect_bridge_count"_fact, reason);
  CHECK(summary(user) == "IOMMU translating for 8 GPUs (DMA-FQ); ACS not read (needs root)");

  FactSet faulted = node(8, true, 16, 4);
  faulted.set("iommu.faulted_gpus"_fact, List{"0000:18:00.0"});
  CHECK(summary(faulted) ==
        "IOMMU translating for 8 GPUs (DMA-FQ); ACS redirect on 4 bridges between GPUs; IOMMU faults from 1 GPU (0000:18:00.0)");

  // A capture from before this layer.
  FactSet old;
  old.set("pci.nvidia_gpu_count"_fact, std::int64_t{1});
  old.set_unknown("iommu.active"_fact, "no /sys/class/iommu or /sys/kernel/iommu_groups in this root or capture");
  gd::AreaLine line = gd::areas::iommu_overview_line(iommu_layer(), old, {});
  CHECK(line.summary == "IOMMU unknown; 1 GPU: no peer path");
  CHECK(line.status == AreaStatus::unknown);
}

}  // namespace GD_UNITY_ID
