#pragma once
// The devices whose peer traffic the iommu layer looks at: the NVIDIA GPUs (from the PCI layer's
// facts) and the RDMA NICs (/sys/class/infiniband/<name>/device), each with its place in the PCI
// tree and its IOMMU group, read through Host.

#include <optional>
#include <string>
#include <vector>

#include "core/fact_set.hpp"
#include "sys/host.hpp"

namespace gd {

struct PeerDevice {
  std::string bus_id;  ///< "0000:18:00.0"
  std::string name;    ///< "" for a GPU, "mlx5_0" for an RDMA device
  /// From the top of the PCI tree down to the device (pci_path_from_link); nullopt with
  /// path_reason when its /sys/bus/pci/devices link could not be read.
  std::optional<std::vector<std::string>> path;
  std::string path_reason;
  std::optional<std::string> group;  ///< IOMMU group number; nullopt: none (group_reason empty) or unknown
  std::string group_reason;
  std::optional<std::string> domain_type;  ///< the group's type; nullopt: unknown (type_reason)
  std::string type_reason;

  /// "GPU 0000:18:00.0" / "mlx5_0 (0000:3b:00.0)".
  std::string label() const;
};

/// The GPUs of pci.gpu.N.bus_id, or the reason they are unknown.
struct GpuList {
  std::vector<PeerDevice> gpus;
  std::string unknown_reason;  ///< non-empty: the GPUs could not be listed
};
GpuList gpus_from_facts(const FactSet& facts);

/// The RDMA devices of /sys/class/infiniband with the PCI function behind each (bounded).
struct NicList {
  std::vector<PeerDevice> nics;
  std::string unknown_reason;
};
NicList rdma_nics(Host& host);

/// Fills in the device's place in the PCI tree (needed only where it has a peer).
void locate_path(Host& host, PeerDevice& device);

/// Fills in the device's IOMMU group and the group's domain type.
void locate_group(Host& host, PeerDevice& device);

}  // namespace gd
