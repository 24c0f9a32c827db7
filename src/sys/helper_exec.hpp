#pragma once
// Runs the embedded glibc helper (gpudoctor-cuda-helper) from the static musl binary: the ELF
// bytes go into a memfd, and the host's own glibc loader runs `/proc/self/fd/N` (GUIDE 5.1,
// libnvidia-container rpc.c). Used by RealHost::run_cuda_helper.

#include "sys/glibc_loader.hpp"  // find_glibc_loader: the loader that runs the helper
#include "sys/host.hpp"

#include <memory>
#include <span>
#include <string>

namespace gd {

/// Runs the helper with a deadline, each stream bounded (reply 1 MiB, stdout/stderr 64 KiB).
/// Never throws and never blocks past `request.timeout_ms` plus about 2 s (a child stuck in
/// the kernel is abandoned, with a note in `error`). Once the reply's `end` line arrives it
/// returns without waiting for the helper's exit (libcuda's teardown).
HelperOutcome exec_cuda_helper(std::span<const unsigned char> helper_elf,
                               const HelperRequest& request);

/// The same in two halves, so that the host probes run while the helper works: start forks
/// the helper and returns at once; finish supervises it as exec_cuda_helper does. The timeout
/// counts from the start.
struct HelperRun;
struct HelperRunDeleter {
  void operator()(HelperRun* run) const;
};
using HelperRunHandle = std::unique_ptr<HelperRun, HelperRunDeleter>;
HelperRunHandle start_cuda_helper(std::span<const unsigned char> helper_elf, const HelperRequest& request);
HelperOutcome finish_cuda_helper(HelperRun& run);
const HelperRequest& started_request(const HelperRun& run);

/// The helper's own deadline for proving GPUs (`--deadline-ms`): the timeout less a margin in
/// which it writes what it has, so that our kill at the timeout only meets a helper stuck in
/// cuInit or in exiting.
constexpr int helper_deadline_ms(int timeout_ms) {
  int margin = timeout_ms / 10 < 1000 ? timeout_ms / 10 : 1000;
  return timeout_ms - margin > 0 ? timeout_ms - margin : 0;
}

}  // namespace gd
