#pragma once
// One bridge's ACS state, read from its config space through Host
// (/sys/bus/pci/devices/<bdf>/config, parsed by probes/iommu/pci_config_space).

#include <cstdint>
#include <string>

#include "sys/host.hpp"

namespace gd {

struct BridgeAcs {
  bool known = false;           ///< false: `reason` says why (needs root, unreadable, malformed)
  bool has_capability = false;  ///< the bridge has the ACS capability (when known)
  std::uint16_t control = 0;    ///< its control register
  std::string reason;

  bool redirects() const;
  /// "ACSCtl: SrcValid+ TransBlk- ReqRedir+ ..." / "no ACS capability" / "ACS unknown: <reason>".
  std::string describe() const;
};

BridgeAcs read_bridge_acs(Host& host, const std::string& bus_id);

}  // namespace gd
