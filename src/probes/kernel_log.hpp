#pragma once
#include "probes/probe.hpp"

namespace gd {
/// NVIDIA driver messages in the kernel log: NVRM lines, Xid codes, RmInitAdapter failures, firmware errors.
void probe_kernel_log(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
