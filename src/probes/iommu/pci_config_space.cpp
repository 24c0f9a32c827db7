#include "probes/iommu/pci_config_space.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace gd {
namespace {

// The kernel's bound on the walk: each capability takes at least 8 bytes (drivers/pci/pci.c
// pci_find_next_ext_capability: ttl = (PCI_CFG_SPACE_EXP_SIZE - PCI_CFG_SPACE_SIZE) / 8).
constexpr int k_max_headers = static_cast<int>((k_ext_config_space_size - k_config_space_size) / 8);

std::uint32_t le32(std::string_view bytes, std::size_t at) {
  auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])); };
  return b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

std::uint16_t le16(std::string_view bytes, std::size_t at) {
  auto b = [&](std::size_t i) { return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[at + i])); };
  return static_cast<std::uint16_t>(b(0) | (b(1) << 8));
}

// lspci's names for the ACS bits, in bit order (pciutils ls-ecaps.c cap_acs).
constexpr std::array<std::pair<std::uint16_t, std::string_view>, 7> k_bit_names = {{
    {k_acs_source_validation, "SrcValid"},
    {k_acs_translation_blocking, "TransBlk"},
    {k_acs_request_redirect, "ReqRedir"},
    {k_acs_completion_redirect, "CmpltRedir"},
    {k_acs_upstream_forwarding, "UpstreamFwd"},
    {k_acs_egress_control, "EgressCtrl"},
    {k_acs_direct_translated, "DirectTrans"},
}};

AcsReading malformed(std::string problem) {
  AcsReading reading;
  reading.state = AcsReading::State::malformed;
  reading.problem = std::move(problem);
  return reading;
}

}  // namespace

AcsReading read_acs(std::string_view config) {
  AcsReading reading;
  if (config.size() <= k_config_space_size) {
    reading.state = AcsReading::State::short_read;
    reading.problem = fmt::format("only {} bytes of config space readable", config.size());
    return reading;
  }
  std::size_t offset = k_config_space_size;
  for (int visited = 0; visited < k_max_headers; ++visited) {
    if (offset + 4 > config.size()) {
      return malformed(fmt::format("capability header at 0x{:x} is past the {} bytes read", offset, config.size()));
    }
    std::uint32_t header = le32(config, offset);
    // An empty or absent list reads as all zeros (or all ones from a device that is gone).
    if (header == 0 || (visited == 0 && header == 0xffffffffu)) {
      reading.state = AcsReading::State::no_capability;
      return reading;
    }
    if ((header & 0xffffu) == k_ext_cap_id_acs) {
      if (offset + 8 > config.size()) {
        return malformed(fmt::format("ACS capability at 0x{:x} is cut off at {} bytes", offset, config.size()));
      }
      reading.state = AcsReading::State::enabled_bits;
      reading.offset = static_cast<std::uint16_t>(offset);
      reading.capability = le16(config, offset + 4);
      reading.control = le16(config, offset + 6);
      return reading;
    }
    std::size_t next = (header >> 20) & 0xffcu;
    if (next == 0) {
      reading.state = AcsReading::State::no_capability;
      return reading;
    }
    if (next < k_config_space_size) {
      return malformed(fmt::format("capability at 0x{:x} points back into the standard header (0x{:x})", offset, next));
    }
    offset = next;
  }
  return malformed(fmt::format("capability list does not end after {} entries (a loop)", k_max_headers));
}

std::string describe_acs_bits(std::uint16_t bits) {
  std::string text;
  for (const auto& [bit, name] : k_bit_names) {
    if (!text.empty()) text += ' ';
    text += fmt::format("{}{}", name, (bits & bit) ? '+' : '-');
  }
  return text;
}

std::string describe_redirect_bits(std::uint16_t control) {
  std::string text;
  for (const auto& [bit, name] : k_bit_names) {
    if ((bit & k_acs_redirect_bits) == 0 || (control & bit) == 0) continue;
    if (!text.empty()) text += ' ';
    text += fmt::format("{}+", name);
  }
  return text;
}

}  // namespace gd
