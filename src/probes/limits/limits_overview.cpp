// The overview line of the limits layer (probes/limits): "1 GPU, /dev/shm 64 MiB, memlock
// unlimited, no RDMA devices".

#include "probes/limits/limits_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd::areas {
namespace {

/// "64 MiB", "125.9 GiB", "8 KiB": binary units, as --shm-size and ulimit -l users think of them.
std::string binary_size(std::int64_t bytes) {
  constexpr std::int64_t k_units[] = {std::int64_t{1} << 30, std::int64_t{1} << 20, std::int64_t{1} << 10};
  constexpr std::string_view k_names[] = {"GiB", "MiB", "KiB"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (bytes < k_units[i]) continue;
    if (bytes % k_units[i] == 0) return fmt::format("{} {}", bytes / k_units[i], k_names[i]);
    return fmt::format("{:.1f} {}", static_cast<double>(bytes) / static_cast<double>(k_units[i]), k_names[i]);
  }
  return fmt::format("{} bytes", bytes);
}

std::string shm_text(const FactSet& facts) {
  if (auto size = facts.get_int("limits.shm.size_bytes"_fact)) return "/dev/shm " + binary_size(*size);
  const Fact* fstype = facts.find("limits.shm.fstype"_fact);
  if (fstype && fstype->state == FactState::absent) return "nothing mounted on /dev/shm";
  if (auto type = facts.get_string("limits.shm.fstype"_fact)) {
    const Fact* size = facts.find("limits.shm.size_bytes"_fact);
    if (*type == "tmpfs" && size && size->state == FactState::absent) return "/dev/shm unlimited";
    if (*type != "tmpfs") return "/dev/shm on " + *type;
  }
  return "/dev/shm unknown";
}

std::string memlock_text(const FactSet& facts) {
  if (auto soft = facts.get_int("limits.memlock.soft_bytes"_fact)) return "memlock " + binary_size(*soft);
  const Fact* soft = facts.find("limits.memlock.soft_bytes"_fact);
  return soft && soft->state == FactState::absent ? "memlock unlimited" : "memlock unknown";
}

std::string rdma_text(const FactSet& facts) {
  auto devices = facts.get_int("limits.rdma.device_count"_fact);
  if (!devices) return "RDMA devices unknown";
  if (*devices == 0) return "no RDMA devices";
  std::string text = plural(*devices, "RDMA device");
  if (auto uverbs = facts.get_int("limits.rdma.uverbs_count"_fact)) {
    text += *uverbs == 0 ? " (no /dev/infiniband/uverbs node here)" : fmt::format(" ({} uverbs)", *uverbs);
  }
  if (auto cap = facts.get_bool("limits.cap_ipc_lock"_fact)) text += *cap ? ", CAP_IPC_LOCK" : ", no CAP_IPC_LOCK";
  return text;
}

/// Present or absent: the probe could tell.
bool decided(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  return fact && fact->state != FactState::unknown;
}

}  // namespace

AreaLine limits_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_left_out(facts, "limits.shm.size_bytes"_fact)) {
    line.status = AreaStatus::skipped;
    line.summary = "skipped (--scope node: the job's container sets them, not the node)";
    return line;
  }
  std::vector<std::string> parts;
  if (auto gpus = facts.get_int("limits.gpu_count"_fact)) parts.push_back(plural(*gpus, "GPU"));
  parts.push_back(shm_text(facts));
  parts.push_back(memlock_text(facts));
  parts.push_back(rdma_text(facts));
  line.summary = fmt::format("{}", fmt::join(parts, ", "));
  bool nothing_known = !decided(facts, "limits.shm.fstype"_fact) && !decided(facts, "limits.memlock.soft_bytes"_fact) &&
                       !decided(facts, "limits.rdma.device_count"_fact);
  line.status = status_for(findings, layer, nothing_known ? AreaStatus::unknown : AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
