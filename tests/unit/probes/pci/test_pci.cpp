#include "probes/pci/pci.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;
using Strings = std::vector<std::string>;

namespace {

// One PCI function as sysfs shows it: the device folder lives under /sys/devices/pci0000:00/,
// /sys/bus/pci/devices/<bdf> links to it, and driver / iommu_group are relative links
// (drivers/pci/pci-sysfs.c, drivers/base/bus.c). Empty values leave the attribute out.
struct FakeFunction {
  std::string bdf;
  std::string vendor, device, klass;
  std::string driver;  ///< "" = no driver bound (no link)
  std::string subsystem_vendor, subsystem_device;
  std::string link_speed, link_width, max_link_speed, max_link_width, numa_node, iommu_group;
};

void add_function(const TempTree& tree, const FakeFunction& f) {
  const std::string real = "/sys/devices/pci0000:00/" + f.bdf;
  auto attr = [&](std::string_view name, const std::string& value) {
    if (!value.empty()) tree.file(real + "/" + std::string(name), value + "\n");
  };
  attr("vendor", f.vendor);
  attr("device", f.device);
  attr("class", f.klass);
  attr("subsystem_vendor", f.subsystem_vendor);
  attr("subsystem_device", f.subsystem_device);
  attr("current_link_speed", f.link_speed);
  attr("current_link_width", f.link_width);
  attr("max_link_speed", f.max_link_speed);
  attr("max_link_width", f.max_link_width);
  attr("numa_node", f.numa_node);
  if (!f.driver.empty()) {
    tree.dir("/sys/bus/pci/drivers/" + f.driver);
    tree.link(real + "/driver", "../../../bus/pci/drivers/" + f.driver);
  }
  if (!f.iommu_group.empty()) {
    tree.dir("/sys/kernel/iommu_groups/" + f.iommu_group);
    tree.link(real + "/iommu_group", "../../../kernel/iommu_groups/" + f.iommu_group);
  }
  tree.link("/sys/bus/pci/devices/" + f.bdf, "../../../devices/pci0000:00/" + f.bdf);
}

// A function with identity and driver only; tests fill in more where they need it.
FakeFunction function(std::string bdf, std::string vendor, std::string device, std::string klass,
                      std::string driver = {}) {
  FakeFunction f;
  f.bdf = std::move(bdf);
  f.vendor = std::move(vendor);
  f.device = std::move(device);
  f.klass = std::move(klass);
  f.driver = std::move(driver);
  return f;
}

FakeFunction nvidia_function(std::string bdf, std::string device, std::string klass, std::string driver) {
  return function(std::move(bdf), "0x10de", std::move(device), std::move(klass), std::move(driver));
}

// The host bridge every machine has: not NVIDIA, must be skipped.
const FakeFunction k_host_bridge = function("0000:00:00.0", "0x8086", "0x1237", "0x060000");

// The real H200's function, with exactly the attributes observations.md shows
// (shared/fixtures/real/h200-container-580.159.04: "0x2335 0x030200 0x18bf drv=nvidia
// link=32.0 GT/s PCIe 16").
const FakeFunction k_h200 = [] {
  FakeFunction f = nvidia_function("0000:00:06.0", "0x2335", "0x030200", "nvidia");
  f.subsystem_device = "0x18bf";
  f.link_speed = "32.0 GT/s PCIe";
  f.link_width = "16";
  return f;
}();

// An RTX 5090 with everything a bare-metal host shows, and its HDMI audio function (class
// 0x040300, pci.ids "GB202 High Definition Audio Controller") that must be ignored.
const FakeFunction k_rtx5090 = [] {
  FakeFunction f = nvidia_function("0000:01:00.0", "0x2b85", "0x030000", "nvidia");
  f.subsystem_vendor = "0x10de";
  f.subsystem_device = "0x2057";
  f.link_speed = "2.5 GT/s PCIe";
  f.link_width = "16";
  f.max_link_speed = "32.0 GT/s PCIe";
  f.max_link_width = "16";
  f.numa_node = "0";
  f.iommu_group = "14";
  return f;
}();
const FakeFunction k_rtx5090_audio = nvidia_function("0000:01:00.1", "0x22e8", "0x040300", "snd_hda_intel");

FactSet probe_tree(const TempTree& tree) {
  gd::RealHost host(tree.root(), {});
  FactSet facts;
  gd::probe_pci(host, gd::ProbeOptions{}, facts);
  return facts;
}

FactSet probe_capture(gd::Capture capture) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  gd::probe_pci(host, gd::ProbeOptions{}, facts);
  return facts;
}

std::optional<Strings> list_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  if (!fact || fact->state != FactState::present) return std::nullopt;
  return std::get<Strings>(fact->value);
}

FactState state_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  return fact->state;
}

}  // namespace

TEST_CASE("pci probe: the real H200's function, read through --root", "[probes][pci]") {
  TempTree tree;
  add_function(tree, k_host_bridge);
  add_function(tree, k_h200);
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 1);
  CHECK(facts.get_int("pci.nvswitch_count"_fact) == 0);
  CHECK(list_of(facts, "pci.gpus"_fact) == Strings{"0000:00:06.0 10de:2335 GH100 Hopper cc 9.0 driver=nvidia"});
  CHECK(facts.get_string("pci.gpu.0.bus_id"_fact) == "0000:00:06.0");
  CHECK(facts.get_string("pci.gpu.0.device_id"_fact) == "2335");
  CHECK(facts.get_string("pci.gpu.0.class"_fact) == "030200");
  CHECK(facts.get_string("pci.gpu.0.subsystem_device"_fact) == "18bf");
  CHECK(facts.get_string("pci.gpu.0.driver"_fact) == "nvidia");
  CHECK(facts.get_string("pci.gpu.0.chip"_fact) == "GH100");
  CHECK(facts.get_string("pci.gpu.0.architecture"_fact) == "Hopper");
  CHECK(facts.get_string("pci.gpu.0.compute_capability"_fact) == "9.0");
  CHECK(facts.get_string("pci.gpu.0.gsp_firmware_file"_fact) == "gsp_ga10x.bin");
  CHECK(facts.get_string("pci.gpu.0.link_speed"_fact) == "32.0 GT/s PCIe");
  CHECK(facts.get_int("pci.gpu.0.link_width"_fact) == 16);
  CHECK(facts.find("pci.gpu.0.driver"_fact)->source == "/sys/bus/pci/devices/0000:00:06.0/driver");
  // What the observation does not show is absent, not invented.
  for (gd::FactName name : {"pci.gpu.0.subsystem_vendor"_fact, "pci.gpu.0.max_link_speed"_fact, "pci.gpu.0.numa_node"_fact,
                           "pci.gpu.0.iommu_group"_fact, "pci.gpu.0.min_driver_version"_fact, "pci.min_driver_version"_fact}) {
    CAPTURE(name);
    CHECK(state_of(facts, name) == FactState::absent);
  }
  CHECK(list_of(facts, "pci.architectures"_fact) == Strings{"Hopper"});
  CHECK(list_of(facts, "pci.drivers_bound"_fact) == Strings{"nvidia"});
  CHECK(list_of(facts, "pci.gsp_firmware_files"_fact) == Strings{"gsp_ga10x.bin"});
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == false);
  CHECK(facts.get_bool("pci.any_pre_turing"_fact) == false);
  CHECK(facts.get_bool("pci.any_grace_hopper"_fact) == false);
  CHECK(facts.get_int("pci.min_driver_branch"_fact) == 0);
  CHECK(facts.get_bool("pci.tegra_soc"_fact) == false);  // no /proc/device-tree on x86
}

TEST_CASE("pci probe: a Jetson's device tree", "[probes][pci]") {
  TempTree tree;
  add_function(tree, k_host_bridge);
  tree.file("/proc/device-tree/compatible", std::string("nvidia,p3701-0000\0nvidia,tegra234\0", 34));
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_bool("pci.tegra_soc"_fact) == true);
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 0);
}

TEST_CASE("pci probe: an RTX 5090 counts once, its audio function not at all", "[probes][pci]") {
  TempTree tree;
  add_function(tree, k_host_bridge);
  add_function(tree, k_rtx5090);
  add_function(tree, k_rtx5090_audio);
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 1);
  CHECK(list_of(facts, "pci.gpus"_fact) == Strings{"0000:01:00.0 10de:2b85 GB202 Blackwell cc 12.0 driver=nvidia"});
  CHECK(facts.get_string("pci.gpu.0.subsystem_vendor"_fact) == "10de");
  CHECK(facts.get_string("pci.gpu.0.subsystem_device"_fact) == "2057");
  CHECK(facts.get_string("pci.gpu.0.link_speed"_fact) == "2.5 GT/s PCIe");  // idle GPUs train down
  CHECK(facts.get_string("pci.gpu.0.max_link_speed"_fact) == "32.0 GT/s PCIe");
  CHECK(facts.get_int("pci.gpu.0.max_link_width"_fact) == 16);
  CHECK(facts.get_int("pci.gpu.0.numa_node"_fact) == 0);
  CHECK(facts.get_int("pci.gpu.0.iommu_group"_fact) == 14);
  CHECK(facts.get_string("pci.gpu.0.gsp_firmware_file"_fact) == "gsp_ga10x.bin");
  CHECK(facts.get_string("pci.gpu.0.min_driver_version"_fact) == "570.86.16");
  CHECK(facts.find("pci.gpu.1.bus_id"_fact) == nullptr);
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == true);
  CHECK(facts.get_string("pci.min_driver_version"_fact) == "570.86.16");
  CHECK(facts.get_int("pci.min_driver_branch"_fact) == 570);
  CHECK(list_of(facts, "pci.drivers_bound"_fact) == Strings{"nvidia"});  // not snd_hda_intel
}

TEST_CASE("pci probe: no NVIDIA function is a real zero", "[probes][pci]") {
  TempTree tree;
  add_function(tree, k_host_bridge);
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 0);
  CHECK(facts.get_int("pci.nvswitch_count"_fact) == 0);
  CHECK(list_of(facts, "pci.gpus"_fact) == Strings{});
  CHECK(list_of(facts, "pci.drivers_bound"_fact) == Strings{});
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == false);
  CHECK(facts.get_bool("pci.any_pre_turing"_fact) == false);
  CHECK(state_of(facts, "pci.min_driver_version"_fact) == FactState::absent);
}

TEST_CASE("pci probe: drivers, NVSwitches, several GPUs in bus order", "[probes][pci]") {
  TempTree tree;
  add_function(tree, k_host_bridge);
  add_function(tree, nvidia_function("0000:0a:00.0", "0x1db1", "0x030200", ""));  // V100, no driver
  add_function(tree, nvidia_function("0000:05:00.0", "0x22a3", "0x068000", "nvidia"));  // H100 NVSwitch
  add_function(tree, nvidia_function("0000:03:00.0", "0x2342", "0x030200", "vfio-pci"));  // GH200 for a VM
  add_function(tree, nvidia_function("0000:04:00.0", "0x1b81", "0x030000", "nouveau"));  // GTX 1070
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 3);
  CHECK(facts.get_int("pci.nvswitch_count"_fact) == 1);
  CHECK(list_of(facts, "pci.nvswitches"_fact) == Strings{"0000:05:00.0 10de:22a3 driver=nvidia"});
  CHECK(list_of(facts, "pci.gpus"_fact) == Strings{"0000:03:00.0 10de:2342 GH100 Hopper cc 9.0 driver=vfio-pci",
                                              "0000:04:00.0 10de:1b81 GP104 Pascal cc 6.1 driver=nouveau",
                                              "0000:0a:00.0 10de:1db1 GV100 Volta cc 7.0 driver=none"});
  CHECK(list_of(facts, "pci.drivers_bound"_fact) == Strings{"vfio-pci", "nouveau", "none"});
  CHECK(list_of(facts, "pci.architectures"_fact) == Strings{"Hopper", "Pascal", "Volta"});
  CHECK(list_of(facts, "pci.gsp_firmware_files"_fact) == Strings{"gsp_ga10x.bin"});
  CHECK(facts.get_bool("pci.any_pre_turing"_fact) == true);
  CHECK(facts.get_bool("pci.any_grace_hopper"_fact) == true);
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == false);
  // The GH200 is on vfio-pci for a VM: the host's own driver need not drive it.
  CHECK(facts.get_bool("pci.host_any_pre_turing"_fact) == true);
  CHECK(facts.get_bool("pci.host_any_grace_hopper"_fact) == false);
  CHECK(facts.get_bool("pci.host_any_blackwell"_fact) == false);
  CHECK(state_of(facts, "pci.gpu.1.gsp_firmware_file"_fact) == FactState::absent);
  CHECK(facts.get_string("pci.gpu.2.driver"_fact) == "none");
}

TEST_CASE("pci probe: a GPU handed to a VM does not count for the host's driver", "[probes][pci]") {
  TempTree tree;
  add_function(tree, nvidia_function("0000:3b:00.0", "0x1db6", "0x030200", "vfio-pci"));  // V100 for a VM
  add_function(tree, nvidia_function("0000:5e:00.0", "0x2901", "0x030200", "nvidia"));    // B200
  add_function(tree, nvidia_function("0000:6e:00.0", "0x3182", "0x030200", "pci-stub"));  // B300 held back
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_bool("pci.any_pre_turing"_fact) == true);
  CHECK(facts.get_bool("pci.host_any_pre_turing"_fact) == false);
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == true);
  CHECK(facts.get_bool("pci.host_any_blackwell"_fact) == true);
  CHECK(facts.get_string("pci.min_driver_version"_fact) == "580.82.07");  // B300, first README 580.82.07
}

TEST_CASE("pci probe: a display GPU nouveau holds beside nvidia's GPUs does not count", "[probes][pci]") {
  TempTree tree;
  add_function(tree, nvidia_function("0000:01:00.0", "0x2901", "0x030200", "nvidia"));   // B200
  add_function(tree, nvidia_function("0000:02:00.0", "0x128b", "0x030000", "nouveau"));  // Kepler display card
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_bool("pci.any_pre_turing"_fact) == true);
  CHECK(facts.get_bool("pci.host_any_pre_turing"_fact) == false);
  CHECK(facts.get_bool("pci.host_any_blackwell"_fact) == true);

  TempTree alone;  // nouveau holds the only GPU: it is the one nvidia should drive
  add_function(alone, nvidia_function("0000:02:00.0", "0x1b81", "0x030000", "nouveau"));  // GTX 1070
  FactSet only = probe_tree(alone);
  CHECK(only.get_bool("pci.host_any_pre_turing"_fact) == true);
}

TEST_CASE("pci probe: an id the table lacks leaves the family questions open", "[probes][pci]") {
  TempTree tree;
  add_function(tree, nvidia_function("0000:01:00.0", "0x2a00", "0x030200", "nvidia"));
  add_function(tree, nvidia_function("0000:02:00.0", "0x2b85", "0x030000", "nvidia"));
  FactSet facts = probe_tree(tree);
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 2);
  CHECK(facts.get_string("pci.gpu.0.architecture"_fact) == "unknown");
  CHECK(state_of(facts, "pci.gpu.0.chip"_fact) == FactState::unknown);
  CHECK(state_of(facts, "pci.gpu.0.compute_capability"_fact) == FactState::unknown);
  CHECK(state_of(facts, "pci.gpu.0.gsp_firmware_file"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("pci.gpu.0.chip"_fact)->reason, Catch::Contains("10de:2a00"));
  CHECK(facts.get_bool("pci.any_blackwell"_fact) == true);       // the 5090 decides it
  CHECK(facts.get_bool("pci.any_pre_turing"_fact) == false);     // 0x2a00 >= 0x1e00
  CHECK(state_of(facts, "pci.any_grace_hopper"_fact) == FactState::unknown);
  CHECK(state_of(facts, "pci.host_any_grace_hopper"_fact) == FactState::unknown);
  CHECK(facts.get_bool("pci.host_any_blackwell"_fact) == true);
  CHECK(state_of(facts, "pci.gsp_firmware_files"_fact) == FactState::unknown);
  CHECK(facts.get_string("pci.min_driver_version"_fact) == "570.86.16");  // a lower bound still holds
}

TEST_CASE("pci probe: an unreadable /sys/bus/pci/devices is unknown, never zero", "[probes][pci]") {
  gd::Capture capture;
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths["/sys/bus/pci/devices"].list = std::unexpected(gd::IoError{EACCES});
  FactSet facts = probe_capture(capture);
  for (gd::FactName name : {"pci.nvidia_gpu_count"_fact, "pci.drivers_bound"_fact, "pci.any_blackwell"_fact, "pci.gpus"_fact}) {
    CAPTURE(name);
    REQUIRE(facts.find(gd::FactName::unchecked(name)));
    CHECK(state_of(facts, name) == FactState::unknown);
    CHECK_THAT(facts.find(gd::FactName::unchecked(name))->reason, Catch::Contains("needs root") && Catch::Contains("EACCES"));
  }
}

TEST_CASE("pci probe: no /sys/bus/pci, or an empty one, is unknown", "[probes][pci]") {
  FactSet missing = probe_capture(gd::Capture{});
  CHECK(state_of(missing, "pci.nvidia_gpu_count"_fact) == FactState::unknown);
  CHECK_THAT(missing.find("pci.nvidia_gpu_count"_fact)->reason, Catch::Contains("does not exist"));

  TempTree tree;
  tree.dir("/sys/bus/pci/devices");
  FactSet empty = probe_tree(tree);
  CHECK(state_of(empty, "pci.nvidia_gpu_count"_fact) == FactState::unknown);
  CHECK_THAT(empty.find("pci.nvidia_gpu_count"_fact)->reason, Catch::Contains("lists no PCI function"));
}

TEST_CASE("pci probe: a function whose vendor cannot be read makes the count unknown", "[probes][pci]") {
  gd::Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  capture.paths["/sys/bus/pci/devices/0000:00:00.0/vendor"].read = std::unexpected(gd::IoError{EIO});
  capture.paths["/sys/bus/pci/devices/0000:00:06.0/vendor"].read = std::string("0x10de\n");
  capture.paths["/sys/bus/pci/devices/0000:00:06.0/class"].read = std::string("0x030200\n");
  capture.paths["/sys/bus/pci/devices/0000:00:06.0/device"].read = std::string("0x2335\n");
  FactSet facts = probe_capture(capture);
  CHECK(state_of(facts, "pci.nvidia_gpu_count"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("pci.nvidia_gpu_count"_fact)->reason, Catch::Contains("0000:00:00.0/vendor") && Catch::Contains("EIO"));
  CHECK(facts.get_string("pci.gpu.0.chip"_fact) == "GH100");  // what could be read stays
}

TEST_CASE("pci probe: the captured healthy H200 container", "[probes][pci]") {
  FactSet facts = probe_capture(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(facts.get_int("pci.nvidia_gpu_count"_fact) == 1);
  CHECK(list_of(facts, "pci.gpus"_fact) == Strings{"0000:00:06.0 10de:2335 GH100 Hopper cc 9.0 driver=nvidia"});
  CHECK(facts.get_string("pci.gpu.0.subsystem_device"_fact) == "18bf");
  CHECK(facts.get_string("pci.gpu.0.link_speed"_fact) == "32.0 GT/s PCIe");
  CHECK(facts.get_int("pci.gpu.0.link_width"_fact) == 16);
  CHECK(facts.get_string("pci.gpu.0.gsp_firmware_file"_fact) == "gsp_ga10x.bin");
  CHECK(list_of(facts, "pci.drivers_bound"_fact) == Strings{"nvidia"});
}

}  // namespace GD_UNITY_ID
