#pragma once
// PCI config space bytes as /sys/bus/pci/devices/<bdf>/config gives them, for tests of the ACS
// reader (probes/iommu). The layout is the kernel's and the PCIe spec's (include/uapi/linux/pci_regs.h):
// a 64-byte type-1 (bridge) header, then extended capabilities from 0x100, each a 32-bit
// little-endian header (id | version << 16 | next << 20).
//
// plx_downstream_port() is the capability chain of a PLX PEX 87xx switch port as lspci -vvv lists
// it (Device Serial Number at 0x100, AER at 0xfb4, Power Budgeting at 0x138, Secondary PCI Express
// at 0x10c, Virtual Channel at 0x148, Multicast at 0xe00, ACS at 0xf24, LTR at 0xb00, vendor
// specific at 0xb70): the ACS lines of such a port read "ACSCap: SrcValid+ TransBlk+ ReqRedir+
// CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+" and "ACSCtl: SrcValid+ TransBlk- ReqRedir+
// CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" (a PEX 8725 port, HeyMeco/Rockchip-pcie-devices#6):
// capability 0x7f, control 0x1d, which Linux sets itself on every ACS port when an IOMMU is on
// (drivers/pci/pci.c pci_std_enable_acs: SV, RR, CR, UF).

#include <cstdint>
#include <string>
#include <vector>

namespace gd::test {

struct ExtCap {
  std::uint16_t offset;
  std::uint16_t id;
  std::uint8_t version = 1;
  std::uint16_t acs_capability = 0;  ///< for id 0x000D
  std::uint16_t acs_control = 0;
};

inline void put16(std::string& bytes, std::size_t at, std::uint16_t value) {
  bytes[at] = static_cast<char>(value & 0xff);
  bytes[at + 1] = static_cast<char>(value >> 8);
}

inline void put32(std::string& bytes, std::size_t at, std::uint32_t value) {
  put16(bytes, at, static_cast<std::uint16_t>(value & 0xffff));
  put16(bytes, at + 2, static_cast<std::uint16_t>(value >> 16));
}

/// 4096 bytes: a bridge header (vendor, device, class 0x060400, header type 1, capability list)
/// and the extended capabilities chained in the order given.
inline std::string config_space(std::uint16_t vendor, std::uint16_t device, const std::vector<ExtCap>& caps) {
  std::string bytes(4096, '\0');
  put16(bytes, 0x00, vendor);
  put16(bytes, 0x02, device);
  put16(bytes, 0x06, 0x0010);       // status: capabilities list
  put32(bytes, 0x08, 0x060400ca);   // class 0x060400 (PCI bridge), revision 0xca
  bytes[0x0e] = 0x01;               // header type 1: bridge
  bytes[0x34] = 0x40;               // first standard capability (not read)
  for (std::size_t i = 0; i < caps.size(); ++i) {
    std::uint32_t next = i + 1 < caps.size() ? caps[i + 1].offset : 0;
    put32(bytes, caps[i].offset, static_cast<std::uint32_t>(caps[i].id) | (std::uint32_t{caps[i].version} << 16) | (next << 20));
    if (caps[i].id == 0x000D) {
      put16(bytes, caps[i].offset + 4u, caps[i].acs_capability);
      put16(bytes, caps[i].offset + 6u, caps[i].acs_control);
    }
  }
  return bytes;
}

/// A PLX PEX 8725 switch port with the given ACS control register (0x1d: SV RR CR UF on).
inline std::string plx_downstream_port(std::uint16_t acs_control) {
  return config_space(0x10b5, 0x8725,
                      {{0x100, 0x0003}, {0xfb4, 0x0001}, {0x138, 0x0004}, {0x10c, 0x0019}, {0x148, 0x0002},
                       {0xe00, 0x0012}, {0xf24, 0x000D, 1, 0x007f, acs_control}, {0xb00, 0x0018}, {0xb70, 0x000B}});
}

/// An Intel root port whose extended capabilities hold no ACS (AER at 0x100, then vendor specific).
inline std::string root_port_without_acs() {
  return config_space(0x8086, 0x2030, {{0x100, 0x0001, 2}, {0x144, 0x000B}, {0x1d0, 0x0019}});
}

}  // namespace gd::test
