#include "probes/driver/secure_boot.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <cerrno>
#include <optional>
#include <string>

namespace gd {
namespace {

constexpr std::string_view k_efi_dir = "/sys/firmware/efi";
constexpr std::string_view k_efivars_dir = "/sys/firmware/efi/efivars";
// EFI_GLOBAL_VARIABLE GUID (UEFI specification, "Globally Defined Variables").
constexpr std::string_view k_secure_boot_var =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

// Module signature enforcement (kernel/module/signing.c module_sig_check): a module without a
// valid signature is refused when sig_enforce is set (-EKEYREJECTED, "Key was rejected by
// service"), else when lockdown forbids it (security_locked_down(LOCKDOWN_MODULE_SIGNATURE),
// "Operation not permitted"); otherwise it loads and only taints the kernel.
constexpr std::string_view k_sig_enforce = "/sys/module/module/parameters/sig_enforce";
constexpr std::string_view k_lockdown = "/sys/kernel/security/lockdown";
constexpr std::string_view k_securityfs = "/sys/kernel/security";

}  // namespace

std::optional<std::string> parse_lockdown_mode(std::string_view text) {
  std::size_t open = text.find('[');
  std::size_t close = text.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open + 1) {
    return std::nullopt;
  }
  std::string mode(text.substr(open + 1, close - open - 1));
  if (mode != "none" && mode != "integrity" && mode != "confidentiality") {
    return std::nullopt;
  }
  return mode;
}

void record_module_sig_enforcement(Host& host, FactSet& facts) {
  constexpr FactName k_fact = "secureboot.module_sig_enforced"_fact;
  if (facts.get_bool("secureboot.enabled"_fact) != true) {
    // Only the Secure Boot rules ask, and only where Secure Boot is on: leave the files unread.
    facts.set_unknown(k_fact, "not examined: UEFI Secure Boot is not on here", std::string(k_sig_enforce));
    return;
  }
  std::optional<bool> sig_enforce;
  std::string why;  // why it cannot be told
  auto add_why = [&](const std::string& text) { why += (why.empty() ? "" : "; ") + text; };
  auto param = host.read_file(k_sig_enforce, 16);
  if (param && (trim_whitespace(*param) == "Y" || trim_whitespace(*param) == "1")) {
    facts.set(k_fact, true, std::string(k_sig_enforce));
    return;
  }
  if (param && (trim_whitespace(*param) == "N" || trim_whitespace(*param) == "0")) {
    sig_enforce = false;
  } else {
    add_why(std::string(k_sig_enforce) + ": " +
            (param ? std::string("unrecognised content") : unreadable_reason(param.error(), host)));
  }
  std::optional<bool> locked;
  auto lockdown = host.read_file(k_lockdown, 256);
  if (lockdown) {
    if (auto mode = parse_lockdown_mode(*lockdown)) {
      locked = *mode != "none";
    } else {
      add_why(std::string(k_lockdown) + ": unrecognised content");
    }
  } else if (lockdown.error().code == ENOENT) {
    // securityfs mounted without the lockdown LSM: no lockdown. Not mounted (a container, an
    // empty folder): cannot tell.
    auto entries = host.list_dir(k_securityfs);
    if (entries && !entries->empty()) {
      locked = false;
    } else {
      add_why(std::string(k_lockdown) + ": securityfs is not mounted at /sys/kernel/security");
    }
  } else {
    add_why(std::string(k_lockdown) + ": " + unreadable_reason(lockdown.error(), host));
  }
  if (locked == true) {
    facts.set(k_fact, true, std::string(k_lockdown));
  } else if (locked == false && sig_enforce == false) {
    facts.set(k_fact, false, std::string(k_sig_enforce) + ", " + std::string(k_lockdown));
  } else {
    facts.set_unknown(k_fact, why, std::string(k_sig_enforce));
  }
}

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
  constexpr FactName k_fact = "secureboot.enabled"_fact;
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
