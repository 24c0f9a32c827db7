#include "probes/driver/secure_boot.hpp"

#include <cerrno>
#include <string>

namespace gd {
namespace {

constexpr std::string_view k_efi_dir = "/sys/firmware/efi";
constexpr std::string_view k_efivars_dir = "/sys/firmware/efi/efivars";
// EFI_GLOBAL_VARIABLE GUID (UEFI specification, "Globally Defined Variables").
constexpr std::string_view k_secure_boot_var =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

}  // namespace

std::optional<bool> parse_secure_boot_variable(std::string_view bytes) {
  if (bytes.size() != 5) {
    return std::nullopt;
  }
  unsigned char value = static_cast<unsigned char>(bytes[4]);
  if (value > 1) {
    return std::nullopt;
  }
  return value == 1;
}

void record_secure_boot(Host& host, FactSet& facts) {
  constexpr std::string_view k_fact = "secureboot.enabled";
  const std::string source(k_secure_boot_var);
  auto efi = host.stat(k_efi_dir);
  if (!efi) {
    if (efi.error().code == ENOENT) {
      // Legacy BIOS boot, or a container whose /sys/firmware is masked (Docker does that): no
      // Secure Boot that this host could see.
      facts.set_absent(k_fact, std::string(k_efi_dir), "no /sys/firmware/efi: not booted through UEFI (or masked)");
    } else {
      facts.set_unknown(k_fact, unreadable_reason(efi.error(), host), std::string(k_efi_dir));
    }
    return;
  }
  auto bytes = host.read_file(k_secure_boot_var, 64);
  if (bytes) {
    if (auto enabled = parse_secure_boot_variable(*bytes)) {
      facts.set(k_fact, *enabled, source);
    } else {
      facts.set_unknown(k_fact, "unrecognised content (" + std::to_string(bytes->size()) + " bytes)", source);
    }
    return;
  }
  if (bytes.error().code != ENOENT) {
    facts.set_unknown(k_fact, unreadable_reason(bytes.error(), host), source);
    return;
  }
  // No SecureBoot variable: either efivarfs is not mounted (empty folder), or the firmware has
  // no Secure Boot support at all (then it is off).
  auto vars = host.list_dir(k_efivars_dir);
  if (vars && !vars->empty()) {
    facts.set(k_fact, false, std::string(k_efivars_dir));
  } else {
    facts.set_unknown(k_fact, "efivarfs is not mounted at /sys/firmware/efi/efivars", std::string(k_efivars_dir));
  }
}

}  // namespace gd
