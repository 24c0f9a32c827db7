#pragma once
// The PCIe Access Control Services (ACS) extended capability read out of a function's config
// space, as /sys/bus/pci/devices/<bdf>/config gives it (pure: bytes in, reading out).
//
// Layout, from the Linux kernel's include/uapi/linux/pci_regs.h: extended capabilities start at
// offset 0x100 (PCI_CFG_SPACE_SIZE); each begins with a 32-bit little-endian header, capability
// id in bits 0-15 (PCI_EXT_CAP_ID), version in 16-19 (PCI_EXT_CAP_VER) and the next capability's
// offset in 20-31 with the low two bits masked (PCI_EXT_CAP_NEXT: (header >> 20) & 0xffc; 0 ends
// the list). ACS is id 0x000D (PCI_EXT_CAP_ID_ACS); its capability register is the 16 bits at +4
// (PCI_ACS_CAP) and its control register the 16 bits at +6 (PCI_ACS_CTRL), both with the bits
// PCI_ACS_SV 0x01, PCI_ACS_TB 0x02, PCI_ACS_RR 0x04, PCI_ACS_CR 0x08, PCI_ACS_UF 0x10,
// PCI_ACS_EC 0x20, PCI_ACS_DT 0x40.
//
// Only root reads past the first 64 bytes of a config file (drivers/pci/pci-sysfs.c
// pci_read_config: an unprivileged reader gets the standard header only, 64 bytes, or 256 where
// the device's header is cached); such a reading says "needs root", never "no ACS".

#include <cstdint>
#include <string>
#include <string_view>

namespace gd {

inline constexpr std::uint16_t k_ext_cap_id_acs = 0x000D;     // PCI_EXT_CAP_ID_ACS
inline constexpr std::size_t k_config_space_size = 256;       // PCI_CFG_SPACE_SIZE: where extended capabilities start
inline constexpr std::size_t k_ext_config_space_size = 4096;  // PCI_CFG_SPACE_EXP_SIZE

/// ACS control (and capability) bits, pci_regs.h.
enum AcsBit : std::uint16_t {
  k_acs_source_validation = 0x01,      // PCI_ACS_SV
  k_acs_translation_blocking = 0x02,   // PCI_ACS_TB
  k_acs_request_redirect = 0x04,       // PCI_ACS_RR
  k_acs_completion_redirect = 0x08,    // PCI_ACS_CR
  k_acs_upstream_forwarding = 0x10,    // PCI_ACS_UF
  k_acs_egress_control = 0x20,         // PCI_ACS_EC
  k_acs_direct_translated = 0x40,      // PCI_ACS_DT
};

/// The bits that send peer-to-peer requests or completions up to the root complex instead of
/// across the switch: the Linux kernel's pci_bridge_has_acs_redir() (drivers/pci/p2pdma.c) tests
/// exactly PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC.
inline constexpr std::uint16_t k_acs_redirect_bits = k_acs_request_redirect | k_acs_completion_redirect | k_acs_egress_control;

struct AcsReading {
  enum class State {
    enabled_bits,  ///< the capability was found: `control` and `capability` hold its registers
    no_capability, ///< the whole extended space was read and has no ACS capability
    short_read,    ///< fewer than 257 bytes: the extended space was not readable (not root)
    malformed,     ///< the capability list is broken (`problem` says how)
  };
  State state = State::malformed;
  std::uint16_t capability = 0;  ///< PCI_ACS_CAP
  std::uint16_t control = 0;     ///< PCI_ACS_CTRL
  std::uint16_t offset = 0;      ///< where the capability was found
  std::string problem;           ///< for malformed: "capability list loops at 0x148", ...
};

/// Walks the extended capability list of `config` (the bytes a read of the config file gave)
/// for ACS. Bounded: at most (4096 - 256) / 8 headers are visited, as the kernel's
/// pci_find_next_ext_capability() does, so a list that loops or runs past the end is malformed,
/// never an endless walk.
AcsReading read_acs(std::string_view config);

/// lspci's spelling of the control register (ls-ecaps.c cap_acs):
/// "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-".
std::string describe_acs_bits(std::uint16_t bits);

/// Only the redirect bits that are set, for a list entry: "ReqRedir+ CmpltRedir+".
std::string describe_redirect_bits(std::uint16_t control);

}  // namespace gd
