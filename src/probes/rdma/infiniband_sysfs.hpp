#pragma once
// What the kernel's RDMA core writes in /sys/class/infiniband (drivers/infiniband/core/sysfs.c;
// Documentation/ABI/stable/sysfs-class-infiniband). Pure parsers: each takes a file's text and
// gives nullopt for anything the kernel would not have written, so that a garbage or truncated
// file becomes an unknown naming the file, never a wrong port state.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/shared/pci_topology.hpp"

namespace gd {

/// "4: ACTIVE" (ports/<n>/state), "5: LinkUp" (ports/<n>/phys_state), "1: CA" (node_type): the
/// kernel prints the number, ": " and the name ("%d: %s\n").
struct NumberedName {
  int number = 0;
  std::string name;
};
std::optional<NumberedName> parse_numbered_name(std::string_view text);

/// The IB port states (include/rdma/ib_verbs.h enum ib_port_state) and physical states
/// (enum ib_port_phys_state) a working port has.
inline constexpr int k_port_state_active = 4;       ///< IB_PORT_ACTIVE
inline constexpr int k_phys_state_link_up = 5;      ///< IB_PORT_PHYS_STATE_LINK_UP

/// ports/<n>/link_layer: "InfiniBand", "Ethernet" (RoCE) or "Unknown".
std::optional<std::string> parse_link_layer(std::string_view text);

/// ports/<n>/rate: "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)", "25 Gb/sec (1X EDR)" (rate_show:
/// "%d%s Gb/sec (%dX%s)\n"). The text without its newline.
std::optional<std::string> parse_rate(std::string_view text);

/// A one-line attribute printed as text (fw_ver "28.39.1002", hca_type "MT4129"): printable
/// ASCII, at most 64 characters.
std::optional<std::string> parse_short_line(std::string_view text);

/// gid_attrs/types/<i>: "RoCE v2" or "IB/RoCE v1" (ib_cache_gid_type_str). Reading it fails for
/// an empty entry of the table.
enum class GidType { roce_v2, ib_roce_v1 };
std::optional<GidType> parse_gid_type(std::string_view text);
std::string_view to_string(GidType type);

/// gids/<i>: eight groups of four hex digits ("fe80:0000:0000:0000:0e42:a1ff:fe7c:3b5e", "%pI6");
/// an empty entry reads as all zeros. true: all zeros; nullopt: not a GID.
std::optional<bool> gid_is_zero(std::string_view text);

/// How close a GPU and a NIC are, nearest first (NCCL's PIX/PXB, PHB, SYS).
enum class Closeness {
  same_switch,     ///< a common bridge below the root port: a PCIe switch both hang from
  same_root,       ///< the same root complex, no common switch
  same_numa,       ///< different root complexes of one NUMA node
  across_numa,     ///< different NUMA nodes: traffic crosses the CPUs' interconnect
  unknown_numa,    ///< different root complexes and no NUMA node to compare (-1 or unreadable)
};
std::string_view to_string(Closeness closeness);

/// The paths from parse_pci_path (probes/shared/pci_topology). numa: the device's numa_node, -1 or
/// nullopt when the platform gives none.
Closeness closeness(const PciPath& gpu, std::optional<int> gpu_numa, const PciPath& nic, std::optional<int> nic_numa);

/// "6.8.0-49-generic" -> {6, 8}; nullopt when it does not start with two numbers.
struct KernelVersion {
  int major = 0;
  int minor = 0;
};
std::optional<KernelVersion> parse_kernel_release(std::string_view release);

}  // namespace gd
