#pragma once
#include "probes/probe.hpp"

namespace gd {
/// Distribution (os-release, NixOS, WSL2), the C library and glibc's version, and whether
/// nvidia-persistenced, the NVSwitch fabric manager and the IMEX daemon run: system.* and service.* facts;
/// for a running fabric manager also when it started against the CUDA processes, and its version
/// (probes/system/fabric_manager).
/// Runs after the libraries probe (its ld.so.cache generator string is a last glibc source)
/// and the containers probe (a container hides the host's processes).
void probe_services(Host& host, const ProbeOptions& options, FactSet& facts);
}  // namespace gd
