#pragma once
#include "probes/probe.hpp"

namespace gd {
/// cgroup version and device rules, container runtime, NVIDIA container variables, hypervisor.
void probe_containers(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
