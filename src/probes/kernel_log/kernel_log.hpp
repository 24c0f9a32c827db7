#pragma once
#include "probes/probe.hpp"

namespace gd {
/// NVIDIA driver messages in the kernel log of the current boot: /dev/kmsg read without blocking,
/// else the newest 4 MiB of /var/log/kern.log, /var/log/messages or /var/log/syslog. Sets the
/// klog.* facts; when no log can be read every one of them is unknown with the reason ("needs
/// root: /dev/kmsg EPERM (kernel.dmesg_restrict = 1), ..."), never a clean result.
void probe_kernel_log(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
