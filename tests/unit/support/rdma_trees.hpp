#pragma once
// Sysfs trees of RDMA hosts for the rdma layer's tests, in the kernel's formats
// (drivers/infiniband/core/sysfs.c; Documentation/ABI/stable/sysfs-class-infiniband): the class
// entry a link into /sys/devices, ports/<n>/{state,phys_state,link_layer,rate}, and for RoCE
// ports gids/<i> and gid_attrs/types/<i>.

#include <cerrno>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sys/capture.hpp"
#include "core/fact_key.hpp"

namespace gd::test_rdma {

struct GidSpec {
  std::string gid;   ///< "fe80:0000:..." as %pI6 prints it
  std::string type;  ///< "RoCE v2", "IB/RoCE v1"
};

struct PortSpec {
  std::string state = "4: ACTIVE";
  std::string phys_state = "5: LinkUp";
  std::string link_layer = "InfiniBand";
  std::string rate = "400 Gb/sec (4X NDR)";
  std::vector<GidSpec> gids;  ///< RoCE: the filled entries from 0; 8 empty ones follow
};

struct HcaSpec {
  std::string name = "mlx5_0";
  std::string root = "pci0000:17";
  std::vector<std::string> chain;  ///< root port ... the HCA's function
  int numa = 0;
  std::string fw = "28.39.1002";
  std::string hca_type = "MT4129";  ///< ConnectX-7
  std::string driver = "mlx5_core";
  std::vector<PortSpec> ports{PortSpec{}};
};

inline std::string device_path(const std::string& root, const std::vector<std::string>& chain) {
  return fmt::format("/sys/devices/{}/{}", root, fmt::join(chain, "/"));
}

inline void add_hca(Capture& c, const HcaSpec& hca) {
  const std::string dir = "/sys/class/infiniband/" + hca.name;
  c.paths[dir].link = fmt::format("../../devices/{}/{}/infiniband/{}", hca.root, fmt::join(hca.chain, "/"), hca.name);
  c.paths[dir + "/fw_ver"].read = hca.fw + "\n";  // "\n" alone from a driver without a firmware string (EFA)
  if (!hca.hca_type.empty()) c.paths[dir + "/hca_type"].read = hca.hca_type + "\n";  // mlx5's own attribute
  c.paths[dir + "/node_type"].read = std::string(hca.driver == "efa" ? "7: unspecified\n" : "1: CA\n");
  c.paths[dir + "/device"].link = "../../../" + hca.chain.back();
  c.paths[dir + "/device/driver"].link = "../../../../bus/pci/drivers/" + hca.driver;
  c.paths[dir + "/device/numa_node"].read = std::to_string(hca.numa) + "\n";
  for (std::size_t i = 0; i < hca.ports.size(); ++i) {
    const PortSpec& port = hca.ports[i];
    const std::string p = fmt::format("{}/ports/{}", dir, i + 1);
    c.paths[p + "/state"].read = port.state + "\n";
    c.paths[p + "/phys_state"].read = port.phys_state + "\n";
    c.paths[p + "/link_layer"].read = port.link_layer + "\n";
    c.paths[p + "/rate"].read = port.rate + "\n";
    if (port.link_layer != "Ethernet") continue;
    std::size_t entries = port.gids.size() + 8;
    for (std::size_t g = 0; g < entries; ++g) {
      if (g < port.gids.size()) {
        c.paths[fmt::format("{}/gids/{}", p, g)].read = port.gids[g].gid + "\n";
        c.paths[fmt::format("{}/gid_attrs/types/{}", p, g)].read = port.gids[g].type + "\n";
      } else {
        c.paths[fmt::format("{}/gids/{}", p, g)].read = std::string("0000:0000:0000:0000:0000:0000:0000:0000\n");
        c.paths[fmt::format("{}/gid_attrs/types/{}", p, g)].read = std::unexpected(IoError{EINVAL});
      }
    }
  }
}

/// A GPU on the bus as the PCI layer reports it, and its /sys/bus/pci/devices link.
inline void add_gpu(Capture& c, FactSet& facts, int index, const std::string& root, const std::vector<std::string>& chain, int numa) {
  c.paths["/sys/bus/pci/devices/" + chain.back()].link = "../../.." + device_path(root, chain);
  facts.set("pci.gpu.*.bus_id"_pattern.at(index), chain.back(), "/sys/bus/pci/devices");
  facts.set("pci.gpu.*.numa_node"_pattern.at(index), std::int64_t{numa}, "/sys/bus/pci/devices");
}

/// An HGX-style node: 8 PCIe switches, each with one GPU and one ConnectX-7 (InfiniBand NDR);
/// switches 0-3 on NUMA node 0, 4-7 on node 1; nvidia_peermem loaded, the open module, kernel 6.8.
struct Node {
  Capture capture;
  FactSet facts;
};

inline std::string bus(int number) { return fmt::format("0000:{:02x}:00.0", number); }

inline Node hgx_infiniband_node() {
  Node node;
  constexpr int k_roots[] = {0x15, 0x26, 0x37, 0x48, 0x97, 0xa8, 0xb9, 0xca};
  for (int i = 0; i < 8; ++i) {
    int r = k_roots[i];
    std::string root = fmt::format("pci0000:{:02x}", r);
    std::vector<std::string> upstream = {fmt::format("0000:{:02x}:01.0", r), bus(r + 1)};
    std::vector<std::string> gpu = upstream, nic = upstream;
    gpu.push_back(fmt::format("0000:{:02x}:00.0", r + 2));
    gpu.push_back(bus(r + 3));
    nic.push_back(fmt::format("0000:{:02x}:01.0", r + 2));
    nic.push_back(bus(r + 4));
    add_gpu(node.capture, node.facts, i, root, gpu, i < 4 ? 0 : 1);
    add_hca(node.capture, HcaSpec{.name = fmt::format("mlx5_{}", i), .root = root, .chain = nic, .numa = i < 4 ? 0 : 1});
  }
  node.capture.paths["/sys/module/nvidia_peermem"].list = std::vector<std::string>{"version", "parameters"};
  node.facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{8}, "/sys/bus/pci/devices");
  node.facts.set("kmod.nvidia.flavor"_fact, std::string("open"), "/proc/driver/nvidia/version");
  node.facts.set("host.kernel_release"_fact, std::string("6.8.0-49-generic"), "uname");
  node.facts.set_absent("env.nccl_ib_gid_index"_fact, "env:NCCL_IB_GID_INDEX");
  return node;
}

/// An AWS p5-style node: 8 GPUs, each with four Elastic Fabric Adapters on its PCIe switch
/// (drivers/infiniband/hw/efa: registered as efa_%d, renamed rdmapXsY by rdma-core's udev rules;
/// node type RDMA_NODE_UNSPECIFIED, one port reported ACTIVE LinkUp, link layer unspecified, which
/// sysfs prints "Unknown", rate 4X EDR, no firmware string and no hca_type); the proprietary
/// module, no peer-memory module, kernel 6.1.
inline Node aws_efa_node() {
  Node node;
  constexpr int k_roots[] = {0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  for (int i = 0; i < 8; ++i) {
    int r = k_roots[i];
    std::string root = fmt::format("pci0000:{:02x}", r);
    std::vector<std::string> upstream = {fmt::format("0000:{:02x}:01.0", r), bus(r + 1)};
    std::vector<std::string> gpu = upstream;
    gpu.push_back(fmt::format("0000:{:02x}:00.0", r + 2));
    gpu.push_back(bus(r + 3));
    add_gpu(node.capture, node.facts, i, root, gpu, i < 4 ? 0 : 1);
    for (int n = 0; n < 4; ++n) {
      std::vector<std::string> nic = upstream;
      nic.push_back(fmt::format("0000:{:02x}:{:02x}.0", r + 2, n + 1));
      nic.push_back(bus(r + 4 + n));
      add_hca(node.capture, HcaSpec{.name = fmt::format("rdmap{}s0", r + 4 + n),
                                    .root = root,
                                    .chain = nic,
                                    .numa = i < 4 ? 0 : 1,
                                    .fw = "",
                                    .hca_type = "",
                                    .driver = "efa",
                                    .ports = {PortSpec{.link_layer = "Unknown", .rate = "100 Gb/sec (4X EDR)"}}});
    }
  }
  node.facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{8}, "/sys/bus/pci/devices");
  node.facts.set("kmod.nvidia.flavor"_fact, std::string("proprietary"), "/proc/driver/nvidia/version");
  node.facts.set("host.kernel_release"_fact, std::string("6.1.109-118.189.amzn2023.x86_64"), "uname");
  node.facts.set_absent("env.nccl_ib_gid_index"_fact, "env:NCCL_IB_GID_INDEX");
  return node;
}

/// A RoCE port's GID table as a ConnectX with one IPv4 address fills it: the link-local GID as
/// RoCE v1 (0) and v2 (1), the IPv4-mapped address as v1 (2) and v2 (3).
inline std::vector<GidSpec> roce_gid_table() {
  return {{"fe80:0000:0000:0000:0e42:a1ff:fe7c:3b5e", "IB/RoCE v1"},
          {"fe80:0000:0000:0000:0e42:a1ff:fe7c:3b5e", "RoCE v2"},
          {"0000:0000:0000:0000:0000:ffff:0a0a:0a0b", "IB/RoCE v1"},
          {"0000:0000:0000:0000:0000:ffff:0a0a:0a0b", "RoCE v2"}};
}

}  // namespace gd::test_rdma
