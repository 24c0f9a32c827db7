#pragma once
// Runs the embedded glibc helper (gpudoctor-cuda-helper) from the static musl binary: the ELF
// bytes go into a memfd, and the host's own glibc loader runs `/proc/self/fd/N` (GUIDE 5.1,
// libnvidia-container rpc.c). Used by RealHost::run_cuda_helper.

#include "sys/glibc_loader.hpp"  // find_glibc_loader: the loader that runs the helper
#include "sys/host.hpp"

#include <span>
#include <string>

namespace gd {

/// Runs the helper with a deadline, each stream bounded (reply 256 KiB, stdout/stderr 64 KiB).
/// Never throws and never blocks past `request.timeout_ms` plus about 2 s (a child stuck in
/// the kernel is abandoned, with a note in `error`).
HelperOutcome exec_cuda_helper(std::span<const unsigned char> helper_elf,
                               const HelperRequest& request);

}  // namespace gd
