#pragma once
// UEFI Secure Boot state from efivarfs: with it on, distribution kernels refuse modules that are
// not signed with a key they trust (a self-built or DKMS nvidia.ko without an enrolled MOK).

#include <optional>
#include <string>
#include <string_view>

#include "probes/probe.hpp"

namespace gd {

/// The content of the SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c efivarfs file: 4 bytes of
/// variable attributes (little endian, Documentation/filesystems/efivarfs.rst), then the UEFI
/// value, one byte, 1 = Secure Boot enforced. Nullopt when the content is not that.
std::optional<bool> parse_secure_boot_variable(std::string_view bytes);

/// The selected mode of /sys/kernel/security/lockdown ("none [integrity] confidentiality" ->
/// "integrity"); nullopt when the text names none of the three.
std::optional<std::string> parse_lockdown_mode(std::string_view text);

/// secureboot.module_sig_enforced: true when /sys/module/module/parameters/sig_enforce is Y or
/// lockdown is in integrity or confidentiality mode (either refuses an unsigned module); false
/// when sig_enforce is N and lockdown is off; unknown otherwise. Secure Boot on alone does not
/// enforce ("mokutil --disable-validation" keeps the firmware variable at 1). Read only when
/// secureboot.enabled is true (record_secure_boot first); otherwise unknown, "not examined".
void record_module_sig_enforcement(Host& host, FactSet& facts);

/// secureboot.enabled: absent when the system did not boot through UEFI (no /sys/firmware/efi),
/// unknown when efivarfs cannot be read.
void record_secure_boot(Host& host, FactSet& facts);

}  // namespace gd
