#include "probes/limits/collective_limits.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/limits/process_limits.hpp"
#include "probes/limits/shm_mount.hpp"

namespace gd {
namespace {

constexpr std::string_view k_mountinfo = "/proc/self/mountinfo";
constexpr std::string_view k_meminfo = "/proc/meminfo";
constexpr std::string_view k_limits = "/proc/self/limits";
constexpr std::string_view k_status = "/proc/self/status";
constexpr std::string_view k_rdma_class = "/sys/class/infiniband";  // one entry per RDMA device (mlx5_0)
constexpr std::string_view k_rdma_nodes = "/dev/infiniband";        // uverbsN: what ibverbs opens

constexpr std::size_t k_max_mountinfo = 1024 * 1024;  // a Kubernetes node can have thousands of mounts
constexpr std::size_t k_max_proc_file = 64 * 1024;     // meminfo, limits, status: ~1.5 KiB each
constexpr std::size_t k_max_devices = 1024;            // RDMA devices or uverbs nodes listed

/// The file's text, or why it is unknown: ENOENT of a /proc file means a --root tree or a capture
/// without it (every running Linux has them), not a host without the limit.
std::optional<std::string> read_proc(Host& host, std::string_view path, std::size_t max_bytes, std::string& reason) {
  auto text = host.read_file(path, max_bytes);
  if (text) return std::move(*text);
  reason = text.error().code == ENOENT ? fmt::format("no {} in this root or capture", path) : unreadable_reason(text.error(), host);
  return std::nullopt;
}

void set_shm_facts(Host& host, FactSet& facts) {
  const std::string source(k_mountinfo);
  std::string reason;
  auto mountinfo = read_proc(host, k_mountinfo, k_max_mountinfo, reason);
  if (!mountinfo) {
    facts.set_unknown("limits.shm.fstype"_fact, reason, source);
    facts.set_unknown("limits.shm.size_bytes"_fact, reason, source);
    return;
  }
  auto mount = find_shm_mount(*mountinfo);
  if (!mount) {
    // Not a mount: a folder of the root filesystem, or nothing (shm_open then fails with ENOENT).
    facts.set_absent("limits.shm.fstype"_fact, source, "nothing is mounted on /dev/shm");
    facts.set_absent("limits.shm.size_bytes"_fact, source, "nothing is mounted on /dev/shm");
    return;
  }
  facts.set("limits.shm.fstype"_fact, mount->fstype, source);
  if (mount->fstype != "tmpfs") {
    facts.set_absent("limits.shm.size_bytes"_fact, source, fmt::format("/dev/shm is a {}, not a tmpfs: no size of its own", mount->fstype));
    return;
  }
  TmpfsSize size = tmpfs_size(mount->super_options);
  switch (size.kind) {
    case TmpfsSize::Kind::bytes:
      facts.set("limits.shm.size_bytes"_fact, static_cast<std::int64_t>(size.bytes), source + " (size=)");
      return;
    case TmpfsSize::Kind::unlimited:
      facts.set_absent("limits.shm.size_bytes"_fact, source, "size=0: the tmpfs has no limit but memory");
      return;
    case TmpfsSize::Kind::malformed:
      facts.set_unknown("limits.shm.size_bytes"_fact, "a size= option that is not a size: " + mount->super_options, source);
      return;
    case TmpfsSize::Kind::default_: break;
  }
  // The kernel prints no size= when the size is the default, half of RAM (mm/shmem.c).
  std::string meminfo_reason;
  auto meminfo = read_proc(host, k_meminfo, k_max_proc_file, meminfo_reason);
  auto total = meminfo ? meminfo_total_bytes(*meminfo) : std::nullopt;
  if (!total) {
    facts.set_unknown("limits.shm.size_bytes"_fact,
                      "a tmpfs without size= (half of RAM), and MemTotal unknown: " +
                          (meminfo ? std::string("no MemTotal line in /proc/meminfo") : meminfo_reason),
                      source);
    return;
  }
  facts.set("limits.shm.size_bytes"_fact, static_cast<std::int64_t>(*total / 2), source + " (no size=: half of MemTotal, /proc/meminfo)");
}

void set_memlock_facts(Host& host, FactSet& facts) {
  const std::string source(k_limits);
  std::string reason;
  auto text = read_proc(host, k_limits, k_max_proc_file, reason);
  auto limit = text ? parse_memlock_limit(*text) : std::nullopt;
  if (text && !limit) reason = "no readable 'Max locked memory' line";
  auto set = [&](FactName name, std::optional<std::uint64_t> LimitPair::*which) {
    if (!limit) {
      facts.set_unknown(name, reason, source);
    } else if (!((*limit).*which)) {
      facts.set_absent(name, source, "unlimited");
    } else {
      facts.set(name, static_cast<std::int64_t>(*((*limit).*which)), source);
    }
  };
  set("limits.memlock.soft_bytes"_fact, &LimitPair::soft);
  set("limits.memlock.hard_bytes"_fact, &LimitPair::hard);
}

void set_capability_facts(Host& host, FactSet& facts) {
  const std::string source = std::string(k_status) + " CapEff";
  std::string reason;
  auto text = read_proc(host, k_status, k_max_proc_file, reason);
  auto mask = text ? parse_effective_capabilities(*text) : std::nullopt;
  if (!mask) {
    facts.set_unknown("limits.cap_ipc_lock"_fact, text ? "no readable CapEff line" : reason, source);
    return;
  }
  facts.set("limits.cap_ipc_lock"_fact, has_capability(*mask, k_cap_ipc_lock), source);
}

/// The entries of `folder` whose names start with `prefix` (all when empty); an empty list when
/// the folder does not exist (no RDMA driver loaded, or none given to this container).
void set_listing(Host& host, std::string_view folder, std::string_view prefix, FactName list_fact,
                 FactName count_fact, FactSet& facts) {
  const std::string source(folder);
  auto names = host.list_dir(folder);
  if (!names && names.error().code != ENOENT && names.error().code != ENOTDIR) {
    std::string reason = unreadable_reason(names.error(), host);
    facts.set_unknown(list_fact, reason, source);
    facts.set_unknown(count_fact, reason, source);
    return;
  }
  std::vector<std::string> found;
  if (names) {
    for (const std::string& name : *names) {
      if (found.size() >= k_max_devices) break;
      if (name.starts_with(prefix)) found.push_back(prefix.empty() ? name : source + "/" + name);
    }
  }
  facts.set(count_fact, static_cast<std::int64_t>(found.size()), source);
  facts.set(list_fact, std::move(found), source);
}

/// The GPUs this process has: the driver's GPUs whose /dev/nvidiaN node is here. A container
/// given one GPU of eight has one node, whatever /proc/driver/nvidia/gpus lists (with CDI it
/// lists the host's eight).
void set_gpu_count(FactSet& facts) {
  const std::string source = "dev.gpu_nodes";
  const Fact* nodes = facts.find("dev.gpu_nodes"_fact);
  if (!nodes) {
    facts.set_unknown("limits.gpu_count"_fact, "dev.gpu_nodes not collected", source);
  } else if (nodes->state != FactState::present) {
    facts.set_unknown("limits.gpu_count"_fact, "dev.gpu_nodes: " + (nodes->reason.empty() ? std::string(to_string(nodes->state)) : nodes->reason),
                      source);
  } else if (auto* list = std::get_if<std::vector<std::string>>(&nodes->value)) {
    facts.set("limits.gpu_count"_fact, static_cast<std::int64_t>(list->size()), source);
  }
}

}  // namespace

void probe_collective_limits(Host& host, const ProbeOptions&, FactSet& facts) {
  set_shm_facts(host, facts);
  set_memlock_facts(host, facts);
  set_capability_facts(host, facts);
  set_listing(host, k_rdma_class, "", "limits.rdma.devices"_fact, "limits.rdma.device_count"_fact, facts);
  set_listing(host, k_rdma_nodes, "uverbs", "limits.rdma.uverbs"_fact, "limits.rdma.uverbs_count"_fact, facts);
  set_gpu_count(facts);
}

}  // namespace gd
