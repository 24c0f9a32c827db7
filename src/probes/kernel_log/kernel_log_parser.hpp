#pragma once
// Pure reading of NVIDIA driver messages out of kernel message lines (probes/kernel_log/kernel_log_framing
// makes the lines): Xid reports, RmInitAdapter failures, GSP firmware loads, API mismatches,
// module signature refusals, unsupported GPUs, nouveau, nvidia-uvm, suspend/resume. Message
// formats from NVIDIA/open-gpu-kernel-modules and the kernel sources named beside each check.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// One Xid report: "NVRM: Xid (PCI:0000:01:00): 79, pid=..., name=..., <text>".
struct XidEvent {
  int code = 0;
  std::string pci;   ///< "0000:01:00.0" (the driver prints domain:bus:device; function 0 added)
  std::string text;  ///< the message after pid= and name=
};

/// The Xid in one line, if it is an Xid report (src/nvidia/src/kernel/gpu/rc/kernel_rc.c).
std::optional<XidEvent> parse_xid_line(std::string_view line);

/// "NVRM: API mismatch: the client ... has the version X, but this kernel module has the version Y."
struct ApiMismatch {
  std::string client_version;
  std::string module_version;
  std::string message;  ///< the sentence, NVRM: prefixes removed
};

/// Everything the NVIDIA-related analysis found in a list of kernel message lines.
struct KernelLogFindings {
  std::size_t line_count = 0;
  std::vector<std::string> nvrm_lines;  ///< the newest NVRM lines (bounded), oldest first
  std::vector<XidEvent> xids;           ///< one per distinct (code, GPU), newest text, first-seen order
  std::vector<std::size_t> xid_repeats; ///< how often each entry of `xids` was logged
  std::vector<int> xid_codes;            ///< distinct codes, first-seen order (kept past the `xids` bound)
  std::size_t xid_total = 0;
  std::vector<std::string> rm_init_adapter;         ///< "0x22:0x56:884", distinct
  std::vector<std::string> firmware_load_failures;  ///< "nvidia/550.76/gsp_ga10x.bin -2", distinct
  std::vector<ApiMismatch> api_mismatches;
  bool module_signature_rejected = false;
  std::vector<std::string> module_signature_messages;  ///< rejections, untrusted keys, unsigned taints
  bool fallen_off_bus = false;
  std::vector<std::string> fallen_off_bus_gpus;  ///< bus ids where the log names them
  bool gsp_timeout = false;
  bool gsp_timeout_message = false;  ///< from the "Timeout ... waiting for RPC" text, which names no bus id
  /// Xid entries (xid_entry_list format) logged before the last "NVRM: loading NVIDIA UNIX ..."
  /// line: they concern the previous load of the module. Everything Xid-related above (xids,
  /// codes, totals, fallen off the bus, GSP timeouts) starts again at that line.
  std::vector<std::string> xids_before_module_load;
  std::size_t module_loads = 0;  ///< "NVRM: loading NVIDIA UNIX" lines seen
  bool gsp_wpr2_up = false;
  bool bar_resize_failed = false;
  std::string probe_not_called;  ///< "The NVIDIA probe routine was not called for 1 device(s)."
  bool nouveau_seen = false;
  std::vector<std::string> gpu_not_supported;  ///< quoted sentences
  std::vector<std::string> uvm_messages;
  bool resume_seen = false;
};

/// Reads the NVIDIA driver's story out of kernel message lines (oldest first).
KernelLogFindings analyse_kernel_log(const std::vector<std::string>& lines);

/// Distinct Xid codes as text, in numeric order ("79", "119").
std::vector<std::string> xid_code_list(const KernelLogFindings& findings);

/// "79 0000:01:00.0 GPU has fallen off the bus." per distinct Xid, " (logged 3 times)" when repeated.
std::vector<std::string> xid_entry_list(const KernelLogFindings& findings);

/// The entries of xid_entry_list() whose code is `code`.
std::vector<std::string> xid_entries_of(const KernelLogFindings& findings, int code);

/// Keeps only the Xids (and fallen-off-the-bus GPUs) of the GPUs in `bus_ids` ("0000:01:00.0"):
/// inside a container the kernel log is the host's, with the Xids of GPUs the container was not
/// given. Returns the entries taken out (xid_entry_list format).
std::vector<std::string> keep_xids_of(KernelLogFindings& findings, const std::vector<std::string>& bus_ids);

}  // namespace gd
