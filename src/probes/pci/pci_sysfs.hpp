#pragma once
// Parsers for the sysfs attributes the PCI probe reads, in the formats of the kernel's
// drivers/pci/pci-sysfs.c: vendor, device, subsystem_vendor, subsystem_device "0x%04x\n", class
// "0x%06x\n", current_link_speed / max_link_speed "%s\n" (pci_speed_string: "32.0 GT/s PCIe"),
// current_link_width / max_link_width "%u\n", numa_node "%d\n"; driver and iommu_group are
// symlinks. Pure functions on the text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// What a PCI function of vendor 0x10de is, by its class code.
enum class PciFunctionKind {
  gpu,       ///< base class 0x03 (0x0300 VGA, 0x0302 3D controller, 0x0380 other display)
  nvswitch,  ///< 0x0680 "bridge: other" (NVSwitch)
  other,     ///< audio (0x0403), USB (0x0c03), USB-C UCSI (0x0c80), ...: not ours
};

/// A sysfs hex attribute ("0x10de\n", "0x030200\n"): the number, or nullopt when the text is
/// not "0x" followed by 1-8 hex digits (surrounding whitespace allowed).
std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text);

/// A sysfs decimal attribute ("16\n", "-1\n").
std::optional<std::int64_t> parse_sysfs_int(std::string_view text);

/// A link speed attribute ("32.0 GT/s PCIe\n"; kernels before 4.17 print "8 GT/s"): the text
/// without the newline; nullopt when empty or "Unknown" / "Unknown speed" (no link).
std::optional<std::string> parse_link_speed(std::string_view text);

/// Kind of a vendor-0x10de function from its 24-bit class code (class, subclass, prog-if).
PciFunctionKind classify_pci_class(std::uint32_t class_code);

/// Last path segment of a symlink target ("../../../bus/pci/drivers/nvidia" -> "nvidia").
std::string_view link_basename(std::string_view target);

/// Whether /proc/device-tree/compatible (NUL-separated strings) names an NVIDIA Tegra SoC
/// ("nvidia,p3737-0000+p3701-0000\0nvidia,p3701-0000\0nvidia,tegra234\0" on a Jetson AGX Orin;
/// Linux Documentation/devicetree/bindings/arm/tegra.yaml): its GPU is part of the SoC, not a PCI
/// device, so an empty PCI bus is no sign of a missing GPU there.
bool compatible_names_tegra(std::string_view compatible);

}  // namespace gd
