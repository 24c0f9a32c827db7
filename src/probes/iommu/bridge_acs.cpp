#include "probes/iommu/bridge_acs.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "probes/iommu/pci_config_space.hpp"
#include "probes/probe.hpp"

namespace gd {

bool BridgeAcs::redirects() const { return known && has_capability && (control & k_acs_redirect_bits) != 0; }

std::string BridgeAcs::describe() const {
  if (!known) return "ACS unknown: " + reason;
  if (!has_capability) return "no ACS capability";
  return "ACSCtl: " + describe_acs_bits(control);
}

BridgeAcs read_bridge_acs(Host& host, const std::string& bus_id) {
  BridgeAcs out;
  const std::string path = fmt::format("/sys/bus/pci/devices/{}/config", bus_id);
  auto bytes = host.read_file(path, k_ext_config_space_size);
  if (!bytes) {
    out.reason = bytes.error().code == ENOENT ? fmt::format("no {} in this root or capture", path)
                                              : fmt::format("{} ({})", unreadable_reason(bytes.error(), host), path);
    return out;
  }
  AcsReading reading = read_acs(*bytes);
  switch (reading.state) {
    case AcsReading::State::enabled_bits:
      out.known = true;
      out.has_capability = true;
      out.control = reading.control;
      return out;
    case AcsReading::State::no_capability:
      out.known = true;
      return out;
    case AcsReading::State::short_read:
      if (host.identity().uid != 0) {
        // pci-sysfs.c pci_read_config(): past the standard header only root may read.
        out.reason = fmt::format("needs root (only {} bytes of {} readable)", bytes->size(), path);
      } else if (bytes->size() == k_config_space_size) {
        // Root reads all there is: 256 bytes is a function without extended config space
        // (conventional PCI, or no ECAM), which has no extended capability at all.
        out.known = true;
      } else {
        out.reason = fmt::format("{} holds {} bytes, less than a config space header", path, bytes->size());
      }
      return out;
    case AcsReading::State::malformed:
      out.reason = fmt::format("{}: {}", path, reading.problem);
      return out;
  }
  return out;
}

}  // namespace gd
