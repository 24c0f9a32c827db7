#pragma once
// Runs the embedded glibc helper (gpudoctor-cuda-helper) from the static musl binary: the ELF
// bytes go into a memfd, and the host's own glibc loader runs `/proc/self/fd/N` (GUIDE 5.1,
// libnvidia-container rpc.c). Used by RealHost::run_cuda_helper.

#include "sys/host.hpp"

#include <span>
#include <string>

namespace gd {

/// Runs the helper with a deadline, each stream bounded (reply 256 KiB, stdout/stderr 64 KiB).
/// Never throws and never blocks past `request.timeout_ms` plus about 2 s (a child stuck in
/// the kernel is abandoned, with a note in `error`).
HelperOutcome exec_cuda_helper(std::span<const unsigned char> helper_elf,
                               const HelperRequest& request);

/// The glibc dynamic loader that can run `helper_elf`: its PT_INTERP when present on this host,
/// else a known path for its architecture (Debian multiarch, RHEL lib64, Arch), else the
/// glibc PT_INTERP of a system program (NixOS keeps its loader in /nix/store). Empty: none
/// (a musl-only host), which makes exec_cuda_helper report `no_loader`.
std::string find_glibc_loader(std::span<const unsigned char> helper_elf);

}  // namespace gd
