#pragma once
// Whether this (Linux) system runs in a virtual machine and under which hypervisor: the CPU's
// "hypervisor" flag in /proc/cpuinfo (CPUID leaf 1, ECX bit 31, set by every x86 hypervisor
// that announces itself) and the DMI vendor strings, matched the way systemd-detect-virt does
// (src/basic/virt.c, dmi_vendor_table). Also the WSL2 kernel.

#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// True when a "flags" line of /proc/cpuinfo lists "hypervisor"; nullopt when no flags line was
/// found (aarch64 has "Features" instead and no such flag).
std::optional<bool> cpuinfo_hypervisor_flag(std::string_view cpuinfo);

/// What the DMI vendor strings say.
struct DmiHypervisor {
  std::string name;         ///< "kvm", "qemu", "vmware", "xen", "amazon", ...
  bool vm_by_itself = true; ///< false for vendors that also sell bare-metal machines (Amazon EC2 metal, ...)
};

/// Matches /sys/class/dmi/id/product_name, then sys_vendor, against the table (prefix match).
std::optional<DmiHypervisor> dmi_hypervisor(std::string_view product_name, std::string_view sys_vendor);

/// virt.is_vm / virt.hypervisor from the two sources; nullopt is_vm when neither was readable.
struct VirtGuess {
  std::optional<bool> is_vm;
  std::string hypervisor;  ///< a name, "unknown" (in a VM, unnamed) or "none"
};

VirtGuess guess_virtualization(std::optional<bool> hypervisor_flag, const std::optional<DmiHypervisor>& dmi,
                               bool dmi_readable);

/// True for a WSL2 kernel: its release or /proc/version says "microsoft-standard" or "WSL2"
/// ("5.15.153.1-microsoft-standard-WSL2", "4.19.104-microsoft-standard").
bool is_wsl2_kernel(std::string_view release, std::string_view proc_version);

}  // namespace gd
