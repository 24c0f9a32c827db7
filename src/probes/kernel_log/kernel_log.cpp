#include "probes/kernel_log/kernel_log.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/kernel_log/iommu_fault_lines.hpp"
#include "probes/kernel_log/kernel_log_facts.hpp"
#include "probes/kernel_log/kernel_log_framing.hpp"
#include "probes/kernel_log/kernel_log_parser.hpp"
#include "probes/kernel_log/syslog_file_trust.hpp"
#include "sys/capture.hpp"
#include "util/errno_names.hpp"

namespace gd {
namespace {

// The newest 4 MiB: a full kernel ring buffer (CONFIG_LOG_BUF_SHIFT up to 25 on large servers
// is 32 MiB, but the default 17-18 is 128-256 KiB) and days of a busy kern.log.
constexpr std::size_t k_max_log_bytes = 4 * 1024 * 1024;
constexpr std::string_view k_dmesg_restrict = "/proc/sys/kernel/dmesg_restrict";
// Where rsyslog writes kernel messages: Debian/Ubuntu kern.log, RHEL/SUSE messages, Debian syslog.
constexpr std::string_view k_syslog_files[] = {"/var/log/kern.log", "/var/log/messages", "/var/log/syslog"};
// The one file that gets the kern facility alone: Debian's and Ubuntu's /etc/rsyslog.conf route
// "kern.* -/var/log/kern.log", while /var/log/syslog ("*.*;auth,authpriv.none") and RHEL's
// /var/log/messages ("*.info;mail.none;authpriv.none;cron.none") take every program's messages.
constexpr std::string_view k_kern_only_file = "/var/log/kern.log";
// IOMMU fault lines kept for the iommu layer: the kernel rate-limits them, but a storm of
// dropped peer writes still prints many; the newest few name the devices.
constexpr std::size_t k_max_iommu_fault_lines = 32;

struct KernelLog {
  std::string source;
  std::vector<std::string> lines;
  std::string trust;        ///< klog.source_trust: "kernel", "trusted: ...", "untrusted: ..."
  bool trusted = true;
};

/// Why one source could not be read, and whether root would have helped.
struct Attempt {
  std::string text;  ///< "/dev/kmsg EPERM (kernel.dmesg_restrict = 1)"
  bool needs_root = false;
};

Attempt failed_attempt(std::string_view path, const IoError& error, Host& host) {
  Attempt attempt;
  attempt.text = std::string(path) + " " + errno_name(error.code);
  attempt.needs_root = (error.code == EACCES || error.code == EPERM) && host.identity().uid != 0;
  return attempt;
}

IoResult<std::string> read_syslog_tail(Host& host, std::string_view path, bool& starts_mid_line) {
  auto st = host.stat(path);
  if (!st) {
    return std::unexpected(st.error());
  }
  if (st->kind != FileKind::regular) {
    return std::unexpected(IoError{ENXIO});
  }
  // Only the end of a large (possibly sparse, never rotated) file: its newest lines.
  std::uint64_t offset = st->size > k_max_log_bytes ? st->size - k_max_log_bytes : 0;
  starts_mid_line = offset > 0;
  return host.read_range(path, offset, k_max_log_bytes);
}

/// How far the kernel-tagged lines of a readable syslog file can be believed. Who can put a line
/// of facility kern there (sources read for this):
/// - util-linux logger: "-p kern.*" is sent as user ("kern is forbidden", misc-utils/logger.c
///   pencode()), so `logger -t kernel` lines are user.* and reach only the mixed files;
/// - rsyslog's imuxsock keeps whatever <PRI> up to 191 a datagram on /dev/log carries, without
///   looking at the sender (plugins/imuxsock/imuxsock.c SubmitMsg()), and journald forwards the raw
///   datagram to it (journald-syslog.c forward_syslog_raw()); journald's native protocol takes
///   SYSLOG_FACILITY from the client (only "_" fields are its own, such as _TRANSPORT=kernel), which
///   rsyslog's imjournal uses as the facility. A hand-made facility-0 datagram or journal entry
///   can therefore still reach kern.log: a <PRI> of 0 or kern.log rules out `logger`, not every
///   local program. Only /dev/kmsg (facility 0 is the kernel's alone: printk.c devkmsg_write()
///   turns user space's 0 into LOG_USER) is the kernel's word.
/// - the traditional formats (RSYSLOG_TraditionalFileFormat, RSYSLOG_FileFormat) write no
///   facility: "<date> <host> kernel: ..." from the kernel and from `logger -t kernel` are the
///   same bytes, so in a mixed file such a line is not the kernel's.
KernelLog assess_syslog(Host& host, std::string_view path, const std::vector<SyslogLine>& tagged) {
  KernelLog log;
  log.source = std::string(path);
  if (std::optional<std::string> why = syslog_file_untrusted(host, path)) {
    log.trusted = false;
    log.trust = "untrusted: " + *why;
    return log;
  }
  const bool kern_only = path == k_kern_only_file;
  std::size_t user_space = 0;
  std::size_t unattested = 0;
  bool recorded = false;
  for (const SyslogLine& line : tagged) {
    if (line.facility == SyslogFacility::user_space) {
      ++user_space;  // a program's line tagged "kernel": never the kernel's
    } else if (line.facility == SyslogFacility::unrecorded && !kern_only) {
      ++unattested;
    } else {
      recorded = recorded || line.facility == SyslogFacility::kernel;
      log.lines.push_back(line.text);
    }
  }
  if (unattested > 0) {
    log.trusted = false;
    log.lines.clear();
    log.trust = fmt::format("untrusted: {} takes every program's lines and records no facility ({} 'kernel:' "
                            "line(s) there could be `logger -t kernel`'s)",
                            path, unattested);
    return log;
  }
  log.trust = kern_only && !recorded ? "trusted: only the logging daemon writes it, and it takes kern.* only"
              : recorded             ? "trusted: only the logging daemon writes it, and each line's <PRI> says kern"
                                     : "trusted: only the logging daemon writes it, and no line in it is the kernel's";
  if (user_space > 0) {
    log.trust += fmt::format(" ({} 'kernel:' line(s) of another facility left out)", user_space);
  }
  return log;
}

/// The kernel log of the current boot, or the reason none could be read. Of the syslog files the
/// first trusted one; where none is, the first readable one, untrusted.
std::expected<KernelLog, std::string> read_kernel_log(Host& host) {
  std::vector<Attempt> attempts;
  std::optional<KernelLog> chosen;
  auto kmsg = host.read_kernel_log(k_max_log_bytes);
  if (kmsg) {
    chosen = KernelLog{std::string(k_kernel_log_path), kmsg_lines(*kmsg), "kernel", true};
  } else {
    Attempt attempt = failed_attempt(k_kernel_log_path, kmsg.error(), host);
    if (kmsg.error().code == EPERM || kmsg.error().code == EACCES) {
      auto restrict = host.read_file(k_dmesg_restrict, 16);
      if (restrict && restrict->starts_with("1")) {
        attempt.text += " (kernel.dmesg_restrict = 1)";
      }
    }
    attempts.push_back(attempt);
    for (std::string_view path : k_syslog_files) {
      bool starts_mid_line = false;
      auto text = read_syslog_tail(host, path, starts_mid_line);
      if (!text) {
        attempts.push_back(failed_attempt(path, text.error(), host));
        continue;
      }
      KernelLog log = assess_syslog(host, path, syslog_kernel_lines(*text, starts_mid_line));
      if (log.trusted) {
        chosen = std::move(log);
        break;
      }
      if (!chosen) {
        chosen = std::move(log);
      } else {
        chosen->trust += "; " + log.trust.substr(std::string_view("untrusted: ").size());
      }
    }
  }
  if (!chosen) {
    bool needs_root = false;
    std::string tried;
    for (const Attempt& attempt : attempts) {
      needs_root = needs_root || attempt.needs_root;
      tried += (tried.empty() ? "" : ", ") + attempt.text;
    }
    return std::unexpected((needs_root ? "needs root: " : "no kernel log readable: ") + tried);
  }
  // A syslog file spans several boots; what happened before the last one no longer applies.
  std::size_t start = current_boot_start(chosen->lines);
  chosen->lines.erase(chosen->lines.begin(), chosen->lines.begin() + static_cast<std::ptrdiff_t>(start));
  return std::move(*chosen);
}

/// An API mismatch message counts while the module it names is still the loaded one: after a
/// module reload the old message stays in the log but no longer describes the host.
bool mismatch_applies(const ApiMismatch& mismatch, const FactSet& facts) {
  const Fact* loaded = facts.find("kmod.nvidia.version"_fact);
  if (!loaded || loaded->state == FactState::unknown) {
    return true;
  }
  if (loaded->state == FactState::absent) {
    return false;
  }
  const std::string* version = std::get_if<std::string>(&loaded->value);
  return !version || *version == mismatch.module_version;
}

/// Inside a container the kernel log is the host's: the bus ids of the GPUs the container was
/// given (/proc/driver/nvidia/gpus lists only those), or nullopt when that is not known or the
/// process is not in a container.
std::optional<std::vector<std::string>> container_gpus(const FactSet& facts) {
  if (facts.get_bool("container.in_container"_fact) != true) {
    return std::nullopt;
  }
  const Fact* gpus = facts.find("kmod.nvidia.gpus"_fact);
  if (!gpus || gpus->state != FactState::present) {
    return std::nullopt;
  }
  const auto* lines = std::get_if<std::vector<std::string>>(&gpus->value);
  if (!lines || lines->empty()) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const std::string& line : *lines) {
    out.push_back(line.substr(0, line.find(' ')));  // "0000:00:06.0 NVIDIA H200"
  }
  return out;
}

void set_xid_findings(KernelLogFindings& found, const std::string& source, FactSet& facts) {
  std::vector<std::string> other_gpus;
  if (auto given = container_gpus(facts)) {
    other_gpus = keep_xids_of(found, *given);
  }
  facts.set("klog.xid_codes"_fact, xid_code_list(found), source);
  facts.set("klog.xids"_fact, xid_entry_list(found), source);
  for (const std::string& code : xid_code_list(found)) {
    facts.set("klog.xid.*"_pattern.at_segment(code), xid_entries_of(found, std::stoi(code)), source);
  }
  facts.set("klog.xid_count"_fact, static_cast<std::int64_t>(found.xid_total), source);
  facts.set("klog.xids_before_module_load"_fact, found.xids_before_module_load, source);
  facts.set("klog.xids_of_other_gpus"_fact, other_gpus, source + " vs kmod.nvidia.gpus");
}

void set_findings(const KernelLog& log, FactSet& facts) {
  const std::string& source = log.source;
  KernelLogFindings found = analyse_kernel_log(log.lines);
  facts.set("klog.readable"_fact, true, source);
  facts.set("klog.source"_fact, source, source);
  facts.set("klog.lines"_fact, static_cast<std::int64_t>(found.line_count), source);
  facts.set("klog.nvrm_lines"_fact, found.nvrm_lines, source);
  set_xid_findings(found, source, facts);
  facts.set("klog.rm_init_adapter"_fact, found.rm_init_adapter, source);
  facts.set("klog.firmware_load_failures"_fact, found.firmware_load_failures, source);
  facts.set("klog.gsp_wpr2_up"_fact, found.gsp_wpr2_up, source);
  facts.set("klog.bar_resize_failed"_fact, found.bar_resize_failed, source);

  const ApiMismatch* mismatch = nullptr;
  for (const ApiMismatch& candidate : found.api_mismatches) {
    if (mismatch_applies(candidate, facts)) {
      mismatch = &candidate;  // the newest that still applies
    }
  }
  facts.set("klog.api_mismatch"_fact, mismatch != nullptr, source);
  if (mismatch) {
    facts.set("klog.api_mismatch_message"_fact, mismatch->message, source);
  } else {
    facts.set_absent("klog.api_mismatch_message"_fact, source);
  }

  facts.set("klog.module_signature_rejected"_fact, found.module_signature_rejected, source);
  facts.set("klog.module_signature_messages"_fact, found.module_signature_messages, source);
  facts.set("klog.nouveau_conflict"_fact, !found.probe_not_called.empty(), source);
  if (found.probe_not_called.empty()) {
    facts.set_absent("klog.nouveau_conflict_message"_fact, source);
  } else {
    facts.set("klog.nouveau_conflict_message"_fact, found.probe_not_called, source);
  }
  facts.set("klog.nouveau_seen"_fact, found.nouveau_seen, source);
  facts.set("klog.gpu_not_supported"_fact, found.gpu_not_supported, source);
  facts.set("klog.fallen_off_bus"_fact, found.fallen_off_bus, source);
  facts.set("klog.fallen_off_bus_gpus"_fact, found.fallen_off_bus_gpus, source);
  facts.set("klog.gsp_timeout"_fact, found.gsp_timeout, source);
  facts.set("klog.uvm_failure"_fact, !found.uvm_messages.empty(), source);
  facts.set("klog.uvm_messages"_fact, found.uvm_messages, source);
  facts.set("klog.resume_seen"_fact, found.resume_seen, source);
  facts.set("klog.iommu_fault_lines"_fact, iommu_fault_lines(log.lines, k_max_iommu_fault_lines), source);
}

}  // namespace

void probe_kernel_log(Host& host, const ProbeOptions&, FactSet& facts) {
  auto log = read_kernel_log(host);
  // Unread is not clean, and a log anyone could have written is not the kernel's: every
  // kernel-log fact is unknown, with the reason (no Xid, no fallen-off-bus GPU from it).
  std::optional<std::string> unknown_reason;
  std::string source(k_kernel_log_path);
  if (!log) {
    unknown_reason = log.error();
  } else if (!log->trusted) {
    unknown_reason = "kernel log " + log->trust;
    source = log->source;
  }
  if (unknown_reason) {
    for (const FactSpec& spec : catalog::kernel_log_facts()) {
      if (std::string_view(spec.name).find('*') != std::string_view::npos) {
        continue;  // klog.xid.*: one fact per code logged, and none is known
      }
      facts.set_unknown(FactName::unchecked(spec.name), *unknown_reason, source);
    }
    if (log) {
      facts.set("klog.source"_fact, log->source, log->source);
      facts.set("klog.source_trust"_fact, log->trust, log->source);
    }
    return;
  }
  facts.set("klog.source_trust"_fact, log->trust, log->source);
  set_findings(*log, facts);
}

}  // namespace gd
