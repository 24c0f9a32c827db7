#include "probes/iommu/iommu_probe.hpp"

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <string>
#include <vector>

#include "pci_config_bytes.hpp"
#include "sys/replay_host.hpp"
#include "fact_access.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Capture;
using gd::FactSet;
using gd::FactState;
using List = std::vector<std::string>;

namespace {

/// A host as sysfs shows it: the GPUs' links into /sys/devices, their IOMMU groups, the bridges'
/// config space, the IOMMU units and the command line.
struct HostTree {
  Capture capture;
  List gpus;
  List klog_fault_lines;
  bool klog_readable = true;

  HostTree() { capture.identity = gd::Identity{0, 0, {}}; }

  /// A function at `path` below host bridge pci0000:00 ("0000:00:01.0/0000:01:00.0/...").
  void device(const std::string& path, const std::string& group = "", const std::string& type = "") {
    std::string bus_id = path.substr(path.rfind('/') + 1);
    capture.paths["/sys/bus/pci/devices/" + bus_id].link = "../../../devices/pci0000:00/" + path;
    if (!group.empty()) {
      capture.paths["/sys/bus/pci/devices/" + bus_id + "/iommu_group"].link = "../../../../kernel/iommu_groups/" + group;
      capture.paths["/sys/kernel/iommu_groups/" + group + "/type"].read = type + "\n";
    }
  }
  void gpu(const std::string& path, const std::string& group = "", const std::string& type = "") {
    device(path, group, type);
    gpus.push_back(path.substr(path.rfind('/') + 1));
  }
  void bridge_config(const std::string& bus_id, std::string bytes) {
    capture.paths["/sys/bus/pci/devices/" + bus_id + "/config"].read = std::move(bytes);
  }
  void iommu(List units) {
    capture.paths["/sys/class/iommu"].list = std::move(units);
    capture.paths["/sys/kernel/iommu_groups"].list = List{};
  }
  void cmdline(const std::string& line) { capture.paths["/proc/cmdline"].read = line + "\n"; }

  FactSet run() {
    gd::ReplayHost host(capture);
    FactSet facts;
    facts.set("pci.nvidia_gpu_count"_fact, static_cast<std::int64_t>(gpus.size()), "/sys/bus/pci/devices");
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      facts.set("pci.gpu.*.bus_id"_pattern.at(static_cast<std::int64_t>(i)), gpus[i], "/sys/bus/pci/devices");
    }
    if (klog_readable) {
      facts.set("klog.iommu_fault_lines"_fact, klog_fault_lines, "/dev/kmsg");
    } else {
      facts.set_unknown("klog.iommu_fault_lines"_fact, "needs root: /dev/kmsg EPERM (kernel.dmesg_restrict = 1)", "/dev/kmsg");
    }
    gd::probe_iommu(host, gd::ProbeOptions{}, facts);
    return facts;
  }
};

/// An HGX-style node: 8 GPUs in pairs below 4 PCIe switches (upstream port, two downstream
/// ports each) under 4 root ports, two RDMA NICs beside GPUs 0 and 4. ACS control as given on
/// the downstream ports.
HostTree eight_gpu_node(std::uint16_t downstream_acs, const std::string& group_type) {
  HostTree tree;
  const char* roots[] = {"0000:00:01.0", "0000:00:02.0", "0000:00:03.0", "0000:00:04.0"};
  const int bus[] = {0x10, 0x20, 0x30, 0x40};
  int group = 10;
  for (int s = 0; s < 4; ++s) {
    std::string up = fmt::format("{:04x}:{:02x}:00.0", 0, bus[s]);
    std::string root_path = std::string(roots[s]) + "/" + up;
    tree.bridge_config(roots[s], gd::test::root_port_without_acs());
    tree.bridge_config(up, gd::test::config_space(0x10b5, 0x8725, {{0x100, 0x0003}}));
    for (int d = 0; d < 2; ++d) {
      std::string down = fmt::format("0000:{:02x}:{:02x}.0", bus[s] + 1, d == 0 ? 0x08 : 0x10);
      std::string gpu = fmt::format("0000:{:02x}:00.0", bus[s] + 2 + d);
      tree.bridge_config(down, gd::test::plx_downstream_port(downstream_acs));
      tree.gpu(root_path + "/" + down + "/" + gpu, group_type.empty() ? "" : std::to_string(group++), group_type);
    }
  }
  return tree;
}

FactState state(const FactSet& facts, gd::FactName name) { return gd::test::state_of(facts, name); }

List list(const FactSet& facts, gd::FactName name) {
  const gd::Fact* fact = facts.find(name);
  INFO("fact " << name.view());
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<List>(fact->value);
}

}  // namespace

TEST_CASE("iommu probe: a healthy 8-GPU node behind PCIe switches, IOMMU off", "[probes][iommu]") {
  HostTree tree = eight_gpu_node(0x0000, "");
  tree.iommu({});
  tree.cmdline("BOOT_IMAGE=/vmlinuz-6.8.0 root=UUID=1 ro intel_iommu=off");
  FactSet facts = tree.run();
  CHECK(facts.get_bool("iommu.active"_fact) == false);
  CHECK(list(facts, "iommu.cmdline_options"_fact) == List{"intel_iommu=off"});
  CHECK(list(facts, "iommu.gpu_domain_types"_fact).empty());
  CHECK(facts.get_int("iommu.translating_gpu_count"_fact) == 0);
  CHECK(list(facts, "iommu.gpu_groups"_fact).front() == "0000:12:00.0 no IOMMU group");
  // 4 root ports, 4 upstream ports, 8 downstream ports: every one between some pair.
  CHECK(facts.get_int("acs.bridges_checked"_fact) == 16);
  CHECK(facts.get_bool("acs.readable"_fact) == true);
  CHECK(list(facts, "acs.redirect_bridges"_fact).empty());
  CHECK(facts.get_int("acs.redirect_bridge_count"_fact) == 0);
  List pairs = list(facts, "acs.gpu_pair_paths"_fact);
  CHECK(pairs.size() == 28);
  CHECK(pairs.front() == "0000:12:00.0 and 0000:13:00.0: 0000:10:00.0, 0000:11:08.0, 0000:11:10.0");
  CHECK(pairs[2].starts_with("0000:12:00.0 and 0000:23:00.0: through the root complex: 0000:00:01.0, 0000:10:00.0,"));
  CHECK(list(facts, "iommu.fault_lines"_fact).empty());
}

TEST_CASE("iommu probe: ACS redirect on the switch ports, a translating IOMMU and a GPU's DMAR faults", "[probes][iommu]") {
  HostTree tree = eight_gpu_node(0x001d, "DMA-FQ");
  tree.iommu({"dmar0", "dmar1", "dmar2", "dmar3"});
  tree.cmdline("BOOT_IMAGE=/vmlinuz-6.8.0 root=UUID=1 ro intel_iommu=on");
  tree.klog_fault_lines = {
      "DMAR: [DMA Write NO_PASID] Request device [12:00.0] fault addr 0x38bfe0000000 [fault reason 0x71] SM: Present bit in "
      "first-level paging entry is clear",
      "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x7cd80000 [fault reason 0x01] Present bit in root entry is clear",
  };
  FactSet facts = tree.run();
  CHECK(facts.get_bool("iommu.active"_fact) == true);
  CHECK(list(facts, "iommu.units"_fact).size() == 4);
  CHECK(list(facts, "iommu.gpu_domain_types"_fact) == List{"DMA-FQ"});
  CHECK(facts.get_int("iommu.translating_gpu_count"_fact) == 8);
  CHECK(list(facts, "iommu.gpu_groups"_fact).front() == "0000:12:00.0 group 10 DMA-FQ");
  List redirects = list(facts, "acs.redirect_bridges"_fact);
  REQUIRE(redirects.size() == 8);  // every downstream port
  // GPU 0000:12:00.0's downstream port counts for its pair below the same switch only: the GPUs
  // below other switches meet it in the root complex, which redirect does not change.
  CHECK(redirects.front() == "0000:11:08.0 (ReqRedir+ CmpltRedir+) between GPUs 0000:12:00.0 and 0000:13:00.0");
  CHECK(list(facts, "acs.bridges"_fact)[1] ==
        "0000:11:08.0 ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
  CHECK(list(facts, "acs.gpu_pair_paths"_fact).front() ==
        "0000:12:00.0 and 0000:13:00.0: 0000:10:00.0, 0000:11:08.0 (ReqRedir+ CmpltRedir+), 0000:11:10.0 (ReqRedir+ CmpltRedir+)");
  // The fault of 12:00.0 is GPU 0000:12:00.0's; the integrated graphics' (00:02.0) is not ours.
  CHECK(list(facts, "iommu.faulted_gpus"_fact) == List{"0000:12:00.0"});
  CHECK(list(facts, "iommu.fault_lines"_fact).size() == 1);
  CHECK(list(facts, "iommu.faulted_devices"_fact) == List{"0000:12:00.0 (GPU)", "00:02.0"});
}

TEST_CASE("iommu probe: an RDMA NIC beside a GPU below one switch", "[probes][iommu]") {
  HostTree tree = eight_gpu_node(0x001d, "identity");
  tree.iommu({"dmar0"});
  tree.cmdline("intel_iommu=on iommu=pt");
  tree.device("0000:00:01.0/0000:10:00.0/0000:11:18.0/0000:14:00.0", "40", "identity");
  tree.bridge_config("0000:11:18.0", gd::test::plx_downstream_port(0x001d));
  tree.capture.paths["/sys/class/infiniband"].list = List{"mlx5_0"};
  tree.capture.paths["/sys/class/infiniband/mlx5_0/device"].link = "../../../0000:14:00.0";
  FactSet facts = tree.run();
  CHECK(facts.get_int("iommu.translating_gpu_count"_fact) == 0);
  CHECK(list(facts, "iommu.gpu_domain_types"_fact) == List{"identity"});
  CHECK(list(facts, "iommu.nic_groups"_fact) == List{"mlx5_0 0000:14:00.0 group 40 identity"});
  List nic = list(facts, "acs.gpu_nic_redirect_bridges"_fact);
  REQUIRE_FALSE(nic.empty());
  CHECK(nic.front() == "0000:11:08.0 (ReqRedir+ CmpltRedir+) between GPU 0000:12:00.0 and mlx5_0 (0000:14:00.0)");
}

TEST_CASE("iommu probe: a 2-GPU workstation, one GPU per root port, IOMMU off", "[probes][iommu]") {
  HostTree tree;
  tree.gpu("0000:00:01.0/0000:01:00.0");
  tree.gpu("0000:00:03.0/0000:02:00.0");
  tree.bridge_config("0000:00:01.0", gd::test::root_port_without_acs());
  tree.bridge_config("0000:00:03.0", gd::test::root_port_without_acs());
  tree.iommu({});
  tree.cmdline("BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=UUID=9ff8c203 ro quiet splash");
  FactSet facts = tree.run();
  CHECK(facts.get_bool("iommu.active"_fact) == false);
  CHECK(list(facts, "iommu.cmdline_options"_fact).empty());
  CHECK(facts.get_int("acs.bridges_checked"_fact) == 2);
  CHECK(list(facts, "acs.bridges"_fact) == List{"0000:00:01.0 no ACS capability", "0000:00:03.0 no ACS capability"});
  CHECK(list(facts, "acs.redirect_bridges"_fact).empty());
  CHECK(list(facts, "acs.gpu_pair_paths"_fact) == List{"0000:01:00.0 and 0000:02:00.0: through the root complex: 0000:00:01.0, 0000:00:03.0"});
}

TEST_CASE("iommu probe: two GPUs on two root ports with redirect on: they meet in the root complex anyway", "[probes][iommu]") {
  HostTree tree;
  tree.gpu("0000:00:01.0/0000:01:00.0");
  tree.gpu("0000:00:03.0/0000:02:00.0");
  tree.bridge_config("0000:00:01.0", gd::test::plx_downstream_port(0x001d));
  tree.bridge_config("0000:00:03.0", gd::test::plx_downstream_port(0x001d));
  tree.iommu({"ivhd0"});
  tree.cmdline("BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=UUID=9ff8c203 ro");
  FactSet facts = tree.run();
  CHECK(facts.get_int("acs.bridges_checked"_fact) == 2);
  CHECK(list(facts, "acs.redirect_bridges"_fact).empty());
  CHECK(facts.get_int("acs.redirect_bridge_count"_fact) == 0);
  CHECK(list(facts, "acs.gpu_pair_paths"_fact).front().starts_with("0000:01:00.0 and 0000:02:00.0: through the root complex: 0000:00:01.0 (ReqRedir+ CmpltRedir+)"));
}

TEST_CASE("iommu probe: not root, the ACS state is unknown with the reason", "[probes][iommu]") {
  HostTree tree = eight_gpu_node(0x001d, "DMA");
  tree.iommu({"ivhd0"});
  tree.capture.identity = gd::Identity{1000, 1000, {}};
  tree.klog_readable = false;
  // What the kernel gives a user: the 64-byte header of each bridge.
  for (auto& [path, entry] : tree.capture.paths) {
    if (path.ends_with("/config")) entry.read = (*entry.read)->substr(0, 64);
  }
  FactSet facts = tree.run();
  CHECK(facts.get_bool("acs.readable"_fact) == false);
  CHECK(state(facts, "acs.redirect_bridges"_fact) == FactState::unknown);
  CHECK(facts.find("acs.redirect_bridges"_fact)->reason ==
        "ACS not read on 0000:10:00.0: needs root (only 64 bytes of /sys/bus/pci/devices/0000:10:00.0/config readable), "
        "and on 15 more bridges");
  CHECK(list(facts, "acs.unreadable_bridges"_fact).size() == 16);
  // The IOMMU's mode does not need root.
  CHECK(facts.get_int("iommu.translating_gpu_count"_fact) == 8);
  // The kernel log was not readable either.
  CHECK(state(facts, "iommu.faulted_gpus"_fact) == FactState::unknown);
  CHECK(facts.find("iommu.faulted_gpus"_fact)->reason.find("dmesg_restrict") != std::string::npos);
}

TEST_CASE("iommu probe: a single-GPU host has no bridge to check", "[probes][iommu]") {
  HostTree tree;
  tree.gpu("0000:00:01.0/0000:01:00.0");
  tree.iommu({});
  FactSet facts = tree.run();
  CHECK(facts.get_int("acs.bridges_checked"_fact) == 0);
  CHECK(state(facts, "acs.readable"_fact) == FactState::absent);
  CHECK(list(facts, "acs.redirect_bridges"_fact).empty());
  CHECK(list(facts, "acs.gpu_pair_paths"_fact).empty());
  CHECK(state(facts, "iommu.cmdline_options"_fact) == FactState::unknown);  // no /proc/cmdline in this tree
}

TEST_CASE("iommu probe: hostile config files are unknown with the file named", "[probes][iommu]") {
  HostTree tree = eight_gpu_node(0x0000, "");
  tree.iommu({});
  // A capability pointing at itself on one bridge, garbage on another.
  std::string loop = gd::test::config_space(0x10b5, 0x8725, {{0x100, 0x0003}});
  gd::test::put32(loop, 0x100, 0x0003u | (1u << 16) | (0x100u << 20));
  tree.bridge_config("0000:11:08.0", loop);
  tree.bridge_config("0000:11:10.0", std::string(300, '\x5a'));
  tree.bridge_config("0000:21:08.0", "short");
  FactSet facts = tree.run();
  CHECK(facts.get_bool("acs.readable"_fact) == false);
  CHECK(state(facts, "acs.redirect_bridges"_fact) == FactState::unknown);
  List unreadable = list(facts, "acs.unreadable_bridges"_fact);
  REQUIRE(unreadable.size() == 3);
  CHECK(unreadable[0].starts_with("0000:11:08.0: /sys/bus/pci/devices/0000:11:08.0/config: capability list does not end"));
  CHECK(unreadable[1].starts_with("0000:11:10.0: /sys/bus/pci/devices/0000:11:10.0/config: "));
  CHECK(unreadable[2] == "0000:21:08.0: /sys/bus/pci/devices/0000:21:08.0/config holds 5 bytes, less than a config space header");
}

TEST_CASE("iommu probe: what cannot be read is unknown, not a clean host", "[probes][iommu]") {
  // A capture from before this layer: none of its files.
  HostTree tree;
  tree.gpu("0000:00:01.0/0000:01:00.0");
  tree.gpu("0000:00:03.0/0000:02:00.0");
  tree.capture.paths.clear();
  FactSet facts = tree.run();
  CHECK(state(facts, "iommu.active"_fact) == FactState::unknown);
  CHECK(facts.find("iommu.active"_fact)->reason == "no /sys/class/iommu or /sys/kernel/iommu_groups in this root or capture");
  CHECK(state(facts, "acs.redirect_bridges"_fact) == FactState::unknown);
  CHECK(facts.find("acs.redirect_bridges"_fact)->reason ==
        "where GPU 0000:01:00.0 sits on the PCI bus is unknown: no /sys/bus/pci/devices/0000:01:00.0 in this root or capture");

  // A copied tree: the devices are folders, not the kernel's links, so the topology is gone.
  tree.capture.paths["/sys/bus/pci/devices/0000:01:00.0/vendor"].read = std::string("0x10de\n");
  tree.capture.paths["/sys/bus/pci/devices/0000:02:00.0/vendor"].read = std::string("0x10de\n");
  facts = tree.run();
  CHECK(facts.find("acs.redirect_bridges"_fact)->reason ==
        "where GPU 0000:01:00.0 sits on the PCI bus is unknown: /sys/bus/pci/devices/0000:01:00.0 is not a link into "
        "/sys/devices (a copied tree keeps no PCI topology)");

  // The PCI layer could not list the GPUs.
  gd::ReplayHost host(Capture{});
  FactSet unknown;
  unknown.set_unknown("pci.nvidia_gpu_count"_fact, "/sys/bus/pci/devices: EACCES", "/sys/bus/pci/devices");
  gd::probe_iommu(host, gd::ProbeOptions{}, unknown);
  CHECK(state(unknown, "acs.redirect_bridges"_fact) == FactState::unknown);
  CHECK(state(unknown, "iommu.translating_gpus"_fact) == FactState::unknown);
}

}  // namespace GD_UNITY_ID
