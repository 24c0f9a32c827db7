#pragma once
// Reads the HCAs of /sys/class/infiniband and their ports through Host (so --root and a replayed
// capture answer too), bounded: at most k_max_hcas devices, k_max_ports ports each, and for RoCE
// ports the first k_gid_scan entries of the GID table. What cannot be read or parsed is kept as a
// line naming the file, and the rest of the device is still read.

#include <optional>
#include <string>
#include <vector>

#include "probes/probe.hpp"
#include "probes/rdma/infiniband_sysfs.hpp"

namespace gd {

inline constexpr std::string_view k_infiniband_class = "/sys/class/infiniband";
inline constexpr std::size_t k_max_hcas = 64;
inline constexpr std::size_t k_max_ports = 16;
/// GID table entries looked at per RoCE port: mlx5 tables have 255, but the kernel fills them from
/// the first, two (RoCE v1 and v2) per IP address of the netdev, so the low ones hold the port's GIDs.
inline constexpr int k_gid_scan = 32;

/// One entry of a RoCE port's GID table that holds a GID.
struct GidEntry {
  int index = 0;
  std::optional<GidType> type;  ///< nullopt: its type file could not be read
};

struct HcaPort {
  int number = 0;
  std::optional<NumberedName> state;       ///< "4: ACTIVE"
  std::optional<NumberedName> phys_state;  ///< "5: LinkUp"
  std::optional<std::string> link_layer;   ///< "InfiniBand", "Ethernet"
  std::optional<std::string> rate;         ///< "400 Gb/sec (4X NDR)"
  std::vector<GidEntry> gids;              ///< RoCE ports: the non-empty entries among the first k_gid_scan
  bool gid_scan_cut = false;               ///< the table goes on past k_gid_scan

  bool active() const;  ///< ACTIVE and LinkUp
  bool down() const;    ///< both states known and not both up
  bool roce() const { return link_layer == "Ethernet"; }
  std::string dir;      ///< /sys/class/infiniband/mlx5_0/ports/1
};

struct Hca {
  std::string name;                      ///< mlx5_0
  std::optional<std::string> fw_ver;     ///< 28.39.1002
  std::optional<std::string> hca_type;   ///< MT4129
  std::optional<std::string> driver;     ///< mlx5_core (the PCI function's driver)
  std::optional<PciPath> pci;            ///< from the class link; nullopt for a virtual device (rxe, siw)
  std::optional<int> numa_node;          ///< device/numa_node; -1 when the platform has none
  std::vector<HcaPort> ports;

  /// An AWS Elastic Fabric Adapter (driver efa; the kernel names it efa_N, rdma-core's udev rules
  /// rdmapXsY): its ports are ACTIVE with link layer "Unknown", and NCCL reaches it only through
  /// the aws-ofi-nccl plugin, not its own InfiniBand transport.
  bool efa() const { return driver == "efa"; }
};

struct HcaScan {
  std::optional<std::string> unknown_reason;  ///< the class folder itself could not be listed
  std::vector<Hca> hcas;
  bool cut = false;                           ///< more than k_max_hcas devices
  std::vector<std::string> unreadable;        ///< "<path>: <why>"
};

HcaScan scan_hcas(Host& host);

/// One GID entry of a port, read for an index outside the scanned range (NCCL_IB_GID_INDEX=40).
/// nullopt type with `empty` false: unreadable.
struct GidLookup {
  bool missing = false;  ///< no such entry: the table is shorter
  bool empty = false;
  std::optional<GidType> type;
  std::string problem;  ///< why it could not be read
};
GidLookup read_gid(Host& host, const HcaPort& port, int index);

}  // namespace gd
