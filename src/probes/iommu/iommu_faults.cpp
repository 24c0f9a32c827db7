#include "probes/iommu/iommu_faults.hpp"

#include <cctype>

#include "probes/shared/pci_topology.hpp"

namespace gd {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

/// "18:00.0", "0x18:0x00.0" (some 5.x kernels), "0000:18:00.0" at the start of `text`, in the
/// normal spelling: lower case, two-digit bus and device.
std::optional<std::string> leading_bus_id(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  auto hex_field = [&](std::size_t min_digits, std::size_t max_digits) -> bool {
    if (text.substr(i, 2) == "0x") i += 2;
    std::size_t start = i;
    while (i < text.size() && is_hex(text[i]) && i - start < max_digits) ++i;
    if (i - start < min_digits) return false;
    for (std::size_t k = start; k < i; ++k) out += static_cast<char>(std::tolower(static_cast<unsigned char>(text[k])));
    return true;
  };
  // Either domain:bus:dev.fn or bus:dev.fn: read the first field wide, decide by what follows.
  if (!hex_field(1, 8) || i >= text.size() || text[i] != ':') return std::nullopt;
  out += ':';
  ++i;
  if (!hex_field(1, 2) || i >= text.size()) return std::nullopt;
  if (text[i] == ':') {  // that was domain:bus
    out += ':';
    ++i;
    if (!hex_field(1, 2)) return std::nullopt;
  }
  if (i + 1 >= text.size() || text[i] != '.' || text[i + 1] < '0' || text[i + 1] > '7') return std::nullopt;
  out += '.';
  out += text[i + 1];
  // Pad single-digit fields the way the kernel prints them ("%02x").
  std::string padded;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find_first_of(":.", start);
    std::string_view field = std::string_view(out).substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool last = end == std::string::npos;
    if (!last && field.size() == 1) padded += '0';
    padded += field;
    if (!last) padded += out[end];
    start = last ? out.size() : end + 1;
  }
  return padded;
}

}  // namespace

std::optional<std::string> iommu_fault_device(std::string_view line) {
  if (std::size_t dmar = line.find("DMAR:"); dmar != std::string_view::npos) {
    std::string_view rest = line.substr(dmar);
    if (rest.find("INTR-REMAP") != std::string_view::npos || rest.find("DMA ") == std::string_view::npos) return std::nullopt;
    std::size_t at = rest.find("Request device [");
    if (at == std::string_view::npos) return std::nullopt;
    return leading_bus_id(rest.substr(at + std::string_view("Request device [").size()));
  }
  std::size_t fault = line.find("[IO_PAGE_FAULT");
  if (fault == std::string_view::npos) return std::nullopt;
  std::string_view inside = line.substr(fault);
  if (std::size_t device = inside.find("device="); device != std::string_view::npos) {
    return leading_bus_id(inside.substr(device + 7));
  }
  // pci_err(): "<driver> 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=...".
  std::string_view before = line.substr(0, fault);
  std::size_t amd = before.rfind(": AMD-Vi:");
  if (amd == std::string_view::npos) return std::nullopt;
  before = before.substr(0, amd);
  std::size_t space = before.rfind(' ');
  std::string_view name = space == std::string_view::npos ? before : before.substr(space + 1);
  if (!is_pci_bus_id(name)) return std::nullopt;
  return std::string(name);
}

bool fault_device_matches(std::string_view fault_device, std::string_view bus_id) {
  if (fault_device == bus_id) return true;
  // No domain in the line: compare bus:device.function (the last 7 characters of a bus id).
  return fault_device.size() == 7 && bus_id.size() > 7 && bus_id.substr(bus_id.size() - 7) == fault_device &&
         bus_id[bus_id.size() - 8] == ':';
}

}  // namespace gd
