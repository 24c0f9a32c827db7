#pragma once
// Where a PCI function sits in the tree (pure), for every layer that asks: the IOMMU layer's
// bridges between two devices, the RDMA layer's GPU-to-NIC closeness. /sys/bus/pci/devices/<bdf> is a link into
// /sys/devices, whose folders nest as the bus does: "../../../devices/pci0000:00/0000:00:01.0/
// 0000:01:00.0/0000:02:08.0/0000:03:00.0" is the function 0000:03:00.0 below the bridges
// 0000:00:01.0 (a root port), 0000:01:00.0 and 0000:02:08.0 (a switch's upstream and downstream
// ports) of host bridge pci0000:00. Which bridges lie between two functions follows the Linux
// kernel's calc_map_type_and_dist() (drivers/pci/p2pdma.c), which warns about ACS redirect
// ("ACS redirect is set between the client and provider") on exactly these.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// "0000:18:00.0" (domain of four or more hex digits: VMD domains are 10000 and up).
bool is_pci_bus_id(std::string_view text);

/// "pci0000:17", "pci10000:e0": the folder of a host bridge (a root complex, or a VMD's domain).
bool is_host_bridge(std::string_view text);

/// A PCI function's place in the tree, read from a sysfs path through /sys/devices (the target of
/// /sys/bus/pci/devices/<bdf>, or of a class entry such as /sys/class/infiniband/mlx5_0:
/// "../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/infiniband/mlx5_0"):
/// root "pci0000:17" (the outermost host bridge), chain {"0000:17:01.0", ..., "0000:1a:00.0"}
/// (the root port first, the function last). A VMD's inner host bridge is passed over, and its
/// functions stay in the chain below the VMD function they hang from. The walk ends at the first
/// folder that is not a function ("infiniband", "mlx5_0", "driver").
struct PciPath {
  std::string root;
  std::vector<std::string> chain;
};
std::optional<PciPath> parse_pci_path(std::string_view sysfs_path);

/// The functions from the top of the tree down to the function itself, from the target of its
/// /sys/bus/pci/devices link (relative or absolute): parse_pci_path's chain, where the target ends
/// at the function. nullopt when it does not lead through /sys/devices to a function.
std::optional<std::vector<std::string>> pci_path_from_link(std::string_view link_target);

/// The bridges traffic between two functions crosses, each once, in the order found: below
/// their deepest common bridge on both sides, plus that common bridge itself (the kernel checks
/// it too); where they share no bridge (they meet in the root complex), every bridge of both paths.
struct BridgesBetween {
  std::vector<std::string> bridges;
  bool through_root_complex = false;  ///< no common bridge: the traffic crosses the host bridge
};
BridgesBetween bridges_between(const std::vector<std::string>& path_a, const std::vector<std::string>& path_b);

}  // namespace gd
