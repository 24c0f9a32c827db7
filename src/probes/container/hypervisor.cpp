#include "probes/container/hypervisor.hpp"

#include <string>

#include "util/text_split.hpp"

namespace gd {
namespace {

struct VendorRow {
  std::string_view prefix;
  std::string_view name;
  bool vm_by_itself;
};

// systemd src/basic/virt.c dmi_vendor_table (product_name is tested before sys_vendor "to
// detect KVM over QEMU"). Vendors that also ship physical machines only name the hypervisor
// when the CPU flag says there is one (systemd itself checks EC2 bare metal separately).
constexpr VendorRow k_vendors[] = {
    {"KVM", "kvm", true},
    {"Amazon EC2", "amazon", false},  // also on *.metal instances
    {"QEMU", "qemu", true},
    {"VMware", "vmware", true},
    {"VMW", "vmware", true},
    {"innotek GmbH", "oracle", true},  // VirtualBox
    {"Oracle Corporation", "oracle", false},  // also Oracle's servers
    {"Xen", "xen", true},
    {"Bochs", "bochs", true},
    {"Parallels", "parallels", true},
    {"BHYVE", "bhyve", true},
    {"Google Compute Engine", "google", false},
    {"Microsoft Corporation", "microsoft", false},  // Hyper-V guests, but also Surface hardware
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::optional<DmiHypervisor> match(std::string_view text) {
  for (const VendorRow& row : k_vendors) {
    if (!text.empty() && text.starts_with(row.prefix)) {
      return DmiHypervisor{std::string(row.name), row.vm_by_itself};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<bool> cpuinfo_hypervisor_flag(std::string_view cpuinfo) {
  bool saw_flags = false;
  for (std::string_view line : split_lines(cpuinfo)) {
    if (!line.starts_with("flags")) {
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    saw_flags = true;
    std::string padded = " " + std::string(line.substr(colon + 1)) + " ";
    for (char& c : padded) {
      if (c == '\t') c = ' ';
    }
    if (padded.find(" hypervisor ") != std::string::npos) {
      return true;
    }
  }
  return saw_flags ? std::optional<bool>(false) : std::nullopt;
}

std::optional<DmiHypervisor> dmi_hypervisor(std::string_view product_name, std::string_view sys_vendor) {
  if (auto found = match(product_name)) {
    return found;
  }
  return match(sys_vendor);
}

VirtGuess guess_virtualization(std::optional<bool> hypervisor_flag, const std::optional<DmiHypervisor>& dmi,
                               bool dmi_readable) {
  VirtGuess out;
  if (hypervisor_flag == true) {
    out.is_vm = true;
    out.hypervisor = dmi ? dmi->name : "unknown";
    return out;
  }
  if (dmi && dmi->vm_by_itself) {
    out.is_vm = true;  // VirtualBox does not set the CPU flag; its DMI strings still say so
    out.hypervisor = dmi->name;
    return out;
  }
  if (hypervisor_flag == false || dmi_readable) {
    out.is_vm = false;
    out.hypervisor = "none";
  }
  return out;
}

bool is_wsl2_kernel(std::string_view release, std::string_view proc_version) {
  std::string r = lower(release);
  std::string v = lower(proc_version);
  // WSL1's release ("4.4.0-19041-Microsoft") has no "-standard": it has no GPU support at all.
  return r.find("microsoft-standard") != std::string::npos || r.find("wsl2") != std::string::npos ||
         v.find("microsoft-standard") != std::string::npos || v.find("wsl2") != std::string::npos;
}

}  // namespace gd
