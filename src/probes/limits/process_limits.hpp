#pragma once
// The process's locked-memory limit and capabilities, as /proc/self/limits and /proc/self/status
// show them. RDMA memory registration (ibv_reg_mr) pins pages and the kernel charges them against
// RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK (drivers/infiniband/core/umem.c, ib_umem_get:
// "new_pinned > lock_limit && !capable(CAP_IPC_LOCK)" -> -ENOMEM).

#include <cstdint>
#include <optional>
#include <string_view>

namespace gd {

/// One resource limit: a number of bytes, or nullopt for "unlimited" (RLIM_INFINITY).
struct LimitPair {
  std::optional<std::uint64_t> soft;
  std::optional<std::uint64_t> hard;
};

/// The "Max locked memory" line of /proc/<pid>/limits (fs/proc/base.c proc_pid_limits: the name
/// padded to 25 columns, then soft and hard, each a number or "unlimited", then "bytes").
/// nullopt when the line is missing or malformed.
std::optional<LimitPair> parse_memlock_limit(std::string_view limits);

/// The effective capability mask, the hexadecimal CapEff line of /proc/<pid>/status; nullopt
/// when it is missing or malformed.
std::optional<std::uint64_t> parse_effective_capabilities(std::string_view status);

/// CAP_IPC_LOCK (include/uapi/linux/capability.h): lock memory beyond RLIMIT_MEMLOCK.
inline constexpr int k_cap_ipc_lock = 14;

constexpr bool has_capability(std::uint64_t mask, int bit) { return (mask >> bit) & 1u; }

}  // namespace gd
