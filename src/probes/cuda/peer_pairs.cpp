#include "probes/cuda/peer_pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/cuda/peer_bandwidth.hpp"
#include "probes/cuda/peer_scope.hpp"

namespace gd {
namespace {

constexpr std::string_view k_src = "helper:peer";
constexpr int k_already_enabled = 704;   // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: enabled
constexpr std::uint32_t k_slot_fill = 0x0badf00d;  // what a receive slot held before the copy

constexpr std::array<FactName, 21> k_summary_facts = {
    "p2p.scope"_fact,
    "p2p.pairs"_fact,
    "p2p.pairs_with_access"_fact,
    "p2p.pairs_no_access"_fact,
    "p2p.pairs_no_access_count"_fact,
    "p2p.pairs_tested"_fact,
    "p2p.pairs_proven"_fact,
    "p2p.pairs_wrong"_fact,
    "p2p.pairs_wrong_count"_fact,
    "p2p.pairs_enable_failed"_fact,
    "p2p.pairs_enable_failed_count"_fact,
    "p2p.pairs_copy_failed"_fact,
    "p2p.pairs_copy_failed_count"_fact,
    "p2p.pairs_failed_count"_fact,
    "p2p.pairs_not_tested"_fact,
    "p2p.pairs_not_tested_count"_fact,
    "p2p.no_access_at_all"_fact,
    "p2p.capability_mismatch"_fact,
    "p2p.capability_mismatch_count"_fact,
    "p2p.nvlink_pairs"_fact,
    "p2p.duration_ms_max"_fact,
};

/// The sums over every pair of the scope.
struct PairSums {
  std::int64_t pairs = 0, with_access = 0, tested = 0, proven = 0, nvlink = 0;
  std::int64_t duration_us_max = -1;
  std::vector<std::string> no_access, wrong, enable_failed, copy_failed, not_tested, mismatch;
};

/// "0000:18:00.0" from CUDA's "0000:18:00.0" and NVML's "00000000:18:00.0": the last 12
/// characters, lower case.
std::string short_bus_id(std::string_view bus_id) {
  std::string out(bus_id.size() > 12 ? bus_id.substr(bus_id.size() - 12) : bus_id);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool failed(const HelperCall& call) { return call.result && *call.result != 0; }

/// Why a GPU's side of a pair stopped, from its own record: its pair thread stuck or crashed, or
/// its own proof stuck, crashed or failed (another job holding it shows here as the context's 46).
std::string thread_note(const HelperReply& reply, int index, int destination) {
  for (const HelperPeerSource& source : reply.peer_sources) {
    if (source.index != index) continue;
    // "peer-copy:3": the step names the destination it was working on.
    const std::optional<std::string>& step = source.stuck ? source.stuck : source.crashed;
    bool this_pair = step && step->ends_with(fmt::format(":{}", destination));
    if (source.stuck && this_pair) return fmt::format("hung (still in {} at the deadline)", *source.stuck);
    if (source.crashed && this_pair) return fmt::format("the driver crashed in this pair's step ({})", *source.crashed);
    if (source.stuck) return fmt::format("not reached: GPU {}'s pairs hung before it (in {})", index, *source.stuck);
    if (source.crashed) return fmt::format("not reached: the driver crashed in GPU {}'s pairs before it ({})", index, *source.crashed);
  }
  if (const HelperCudaDevice* device = find_cuda_device(reply, index)) {
    if (device->stuck) return fmt::format("GPU {}'s own proof hung (still in {})", index, *device->stuck);
    if (device->crashed) return fmt::format("the driver crashed in GPU {}'s own proof ({})", index, *device->crashed);
  }
  return {};
}

/// The context failure of a GPU whose own proof failed: another job's GPU reads 46 here.
std::string own_failure_note(const HelperReply& reply, int index) {
  const HelperCudaDevice* device = find_cuda_device(reply, index);
  if (device && failed(device->context)) return fmt::format(" (GPU {}'s context: {})", index, peer_call_text(device->context));
  return {};
}

/// The NVML pair of the same two GPUs, matched by bus id (CUDA's and NVML's indices may differ).
const HelperNvmlPeerPair* nvml_pair(const HelperReply& reply, int a, int b) {
  const HelperCudaDevice* da = find_cuda_device(reply, a);
  const HelperCudaDevice* db = find_cuda_device(reply, b);
  if (!da || !db || !da->pci_bus_id || !db->pci_bus_id) return nullptr;
  auto nvml_index = [&](const std::string& bus) -> std::optional<int> {
    for (const HelperNvmlDevice& d : reply.nvml_devices) {
      if (d.pci_bus_id && short_bus_id(*d.pci_bus_id) == short_bus_id(bus)) return d.index;
    }
    return std::nullopt;
  };
  std::optional<int> na = nvml_index(*da->pci_bus_id), nb = nvml_index(*db->pci_bus_id);
  if (!na || !nb) return nullptr;
  for (const HelperNvmlPeerPair& p : reply.nvml_peer_pairs) {
    if (p.source == *na && p.destination == *nb) return &p;
  }
  return nullptr;
}

const HelperNvmlPeerPair* nvml_pair_either_way(const HelperReply& reply, int a, int b, bool topology) {
  const HelperNvmlPeerPair* p = nvml_pair(reply, a, b);
  if (topology && (!p || !p->topology)) {
    const HelperNvmlPeerPair* q = nvml_pair(reply, b, a);
    if (q && q->topology) return q;
  }
  return p;
}

std::string_view p2p_status_text(int status) {
  switch (status) {  // nvmlGpuP2PStatus_t (nvml.h)
    case 0: return "OK";
    case 1: return "chipset not supported";
    case 2: return "GPU not supported";
    case 3: return "IOH topology not supported";
    case 4: return "disabled by regkey";
    case 5: return "not supported";
    default: return "unknown";
  }
}

std::string_view topology_text(int level) {
  switch (level) {  // nvmlGpuTopologyLevel_t (nvml.h)
    case 0: return "same board";
    case 10: return "one PCIe switch";
    case 20: return "several PCIe switches";
    case 30: return "a host bridge";
    case 40: return "a NUMA node";
    case 50: return "across NUMA nodes";
    default: return "unknown";
  }
}

/// "read OK, write OK, NVLink not supported, common ancestor a host bridge".
std::string nvml_text(const HelperReply& reply, int a, int b) {
  const HelperNvmlPeerPair* p = nvml_pair(reply, a, b);
  const HelperNvmlPeerPair* t = nvml_pair_either_way(reply, a, b, true);
  std::vector<std::string> parts;
  auto add = [&](std::string_view what, const std::optional<int>& value, const HelperCall& call) {
    if (value) {
      parts.push_back(fmt::format("{} {}", what, p2p_status_text(*value)));
    } else if (call.result) {
      parts.push_back(fmt::format("{} query failed ({})", what, call.error.value_or(std::to_string(*call.result))));
    }
  };
  if (p) {
    add("read", p->read, p->read_call);
    add("write", p->write, p->write_call);
    add("NVLink", p->nvlink, p->nvlink_call);
  }
  if (t && t->topology) parts.push_back(fmt::format("common ancestor {}", topology_text(*t->topology)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

/// Where CUDA's cuDeviceCanAccessPeer and NVML's read/write status disagree.
void compare_with_nvml(const HelperReply& reply, const HelperPeerPair& pair, PairSums& sums) {
  const HelperNvmlPeerPair* p = nvml_pair(reply, pair.source, pair.destination);
  if (!p || !p->read || !p->write || !pair.can_access) return;
  if (p->nvlink == 0) ++sums.nvlink;
  bool nvml_access = *p->read == 0 && *p->write == 0;
  if (nvml_access == (*pair.can_access != 0)) return;
  sums.mismatch.push_back(fmt::format("{}: CUDA says {}, NVML says read {}, write {}",
                                      peer_pair_name(reply, pair.source, pair.destination),
                                      *pair.can_access ? "peer access" : "no peer access", p2p_status_text(*p->read),
                                      p2p_status_text(*p->write)));
}

struct PairVerdict {
  std::string status;
  std::string detail;
};

/// The verdict of one pair of the scope; `pair` is null when the reply has no line of it.
PairVerdict judge(const HelperReply& reply, int a, int b, const HelperPeerPair* pair, const std::string& not_reached) {
  auto stopped = [&](std::string_view where) {
    std::string note = thread_note(reply, a, b);
    return PairVerdict{"not-tested", note.empty() ? fmt::format("{} ({})", not_reached, where) : note};
  };
  if (!pair) return stopped("before cuDeviceCanAccessPeer");
  if (pair->can_access_call.result) {
    return {"not-tested", fmt::format("cuDeviceCanAccessPeer failed: {}", peer_call_text(pair->can_access_call))};
  }
  if (!pair->can_access) return stopped("in cuDeviceCanAccessPeer");
  if (*pair->can_access == 0) return {"no-access", "cuDeviceCanAccessPeer: no peer access"};
  if (pair->not_tested) {
    // The helper names the GPU whose own proof failed; the context's code says why (46: another job's).
    std::string note;
    for (int index : {a, b}) {
      if (pair->not_tested->starts_with(fmt::format("GPU {}:", index))) note = own_failure_note(reply, index);
    }
    return {"not-tested", *pair->not_tested + note};
  }
  if (!pair->enable.result) return stopped("in cuCtxEnablePeerAccess");
  if (*pair->enable.result != 0 && *pair->enable.result != k_already_enabled) {
    return {"enable-failed", fmt::format("cuCtxEnablePeerAccess: {}", peer_call_text(pair->enable))};
  }
  const std::pair<std::string_view, const HelperCall*> calls[] = {
      {"cuMemcpyPeer", &pair->copy}, {"cuCtxSynchronize after the copy", &pair->sync}, {"cuMemcpyDtoH of the copy", &pair->readback}};
  for (const auto& [what, call] : calls) {
    if (!call->result) return stopped(fmt::format("in {}", what));
    if (*call->result != 0) return {"copy-failed", fmt::format("{}: {}", what, peer_call_text(*call))};
  }
  if (!pair->check) return stopped("in the check");
  if (*pair->check == "ok") return {"proven", "every element arrived"};
  std::string value = pair->check_value.value_or("?");
  bool never_arrived = value == fmt::format("0x{:08x}", k_slot_fill);
  return {"wrong", fmt::format("element {} is {}, expected {}: {}",
                               pair->check_index.value_or(-1), value, pair->check_expected.value_or("?"),
                               never_arrived ? "the copy never arrived (the slot kept its fill)" : "the copy arrived corrupted")};
}

void count_verdict(const HelperReply& reply, int a, int b, const PairVerdict& verdict, PairSums& sums) {
  std::string name = peer_pair_name(reply, a, b);
  const std::string& s = verdict.status;
  if (s != "no-access" && !(s == "not-tested" && verdict.detail.starts_with("cuDeviceCanAccessPeer"))) ++sums.with_access;
  if (s == "proven" || s == "wrong" || s == "enable-failed" || s == "copy-failed") ++sums.tested;
  if (s == "proven") ++sums.proven;
  if (s == "no-access") sums.no_access.push_back(name);
  if (s == "wrong") sums.wrong.push_back(name + ": " + verdict.detail);
  if (s == "enable-failed") sums.enable_failed.push_back(name + ": " + verdict.detail);
  if (s == "copy-failed") sums.copy_failed.push_back(name + ": " + verdict.detail);
  if (s == "not-tested") sums.not_tested.push_back(name + ": " + verdict.detail);
}

void set_list(FactSet& facts, FactName list, FactName count, const std::vector<std::string>& items) {
  facts.set(list, items, std::string(k_src));
  facts.set(count, static_cast<std::int64_t>(items.size()), std::string(k_src));
}

void set_sums(FactSet& facts, const PairSums& sums, std::int64_t gpus) {
  const std::string src(k_src);
  facts.set("p2p.pairs"_fact, sums.pairs, src);
  facts.set("p2p.pairs_with_access"_fact, sums.with_access, src);
  set_list(facts, "p2p.pairs_no_access"_fact, "p2p.pairs_no_access_count"_fact, sums.no_access);
  facts.set("p2p.pairs_tested"_fact, sums.tested, src);
  facts.set("p2p.pairs_proven"_fact, sums.proven, src);
  set_list(facts, "p2p.pairs_wrong"_fact, "p2p.pairs_wrong_count"_fact, sums.wrong);
  set_list(facts, "p2p.pairs_enable_failed"_fact, "p2p.pairs_enable_failed_count"_fact, sums.enable_failed);
  set_list(facts, "p2p.pairs_copy_failed"_fact, "p2p.pairs_copy_failed_count"_fact, sums.copy_failed);
  facts.set("p2p.pairs_failed_count"_fact,
            static_cast<std::int64_t>(sums.wrong.size() + sums.enable_failed.size() + sums.copy_failed.size()), src);
  set_list(facts, "p2p.pairs_not_tested"_fact, "p2p.pairs_not_tested_count"_fact, sums.not_tested);
  facts.set("p2p.no_access_at_all"_fact,
            gpus >= 2 && sums.pairs > 0 && static_cast<std::int64_t>(sums.no_access.size()) == sums.pairs, src);
  set_list(facts, "p2p.capability_mismatch"_fact, "p2p.capability_mismatch_count"_fact, sums.mismatch);
  facts.set("p2p.nvlink_pairs"_fact, sums.nvlink, src);
  if (sums.duration_us_max >= 0) {
    facts.set("p2p.duration_ms_max"_fact, (sums.duration_us_max + 999) / 1000, src);
  } else {
    facts.set_absent("p2p.duration_ms_max"_fact, src, "no pair was copied");
  }
}

/// One GPU, or none: no pairs at all, and nothing to judge.
void set_no_pairs(FactSet& facts, std::int64_t gpus) {
  facts.set_absent("p2p.scope"_fact, std::string(k_src), gpus == 1 ? "one GPU: no peers" : "no GPU: no peers");
  set_sums(facts, PairSums{}, gpus);
}

}  // namespace

void record_no_peer_pairs(FactSet& facts, const std::string& why, const std::string& source) {
  facts.set_unknown("p2p.gpu_count"_fact, why, source);
  for (FactName name : k_summary_facts) facts.set_unknown(name, why, source);
}

void record_peer_pairs(const HelperReply& reply, FactSet& facts, const std::string& not_reached) {
  const std::string src(k_src);
  if (!reply.cuda_device_count) {
    record_no_peer_pairs(facts, reply.cuda_init.result && *reply.cuda_init.result != 0 ? "cuInit failed: CUDA sees no GPU to pair"
                                                                                       : not_reached,
                         src);
    return;
  }
  const std::int64_t gpus = *reply.cuda_device_count;
  facts.set("p2p.gpu_count"_fact, gpus, src);
  if (gpus < 2) {
    set_no_pairs(facts, gpus);
    return;
  }
  if (reply.protocol_minor < 3) {
    record_no_peer_pairs(facts, fmt::format("the helper's reply (protocol 1.{}) predates the pair proof (1.3)", reply.protocol_minor), src);
    facts.set("p2p.gpu_count"_fact, gpus, src);
    return;
  }
  if (!reply.peer_scope) {
    record_no_peer_pairs(facts, not_reached, src);
    facts.set("p2p.gpu_count"_fact, gpus, src);
    return;
  }
  if (*reply.peer_scope == "off") {
    record_no_peer_pairs(facts, "the pair proof was turned off (GPUDOCTOR_HELPER_PEER=off)", src);
    facts.set("p2p.gpu_count"_fact, gpus, src);
    return;
  }
  facts.set("p2p.scope"_fact, *reply.peer_scope, src);
  const int n = reply.peer_gpus.value_or(static_cast<int>(std::min<std::int64_t>(gpus, 64)));
  PairSums sums;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (!in_peer_scope(a, b, n)) continue;
      ++sums.pairs;
      const HelperPeerPair* pair = find_peer_pair(reply, a, b);
      PairVerdict verdict = judge(reply, a, b, pair, not_reached);
      count_verdict(reply, a, b, verdict, sums);
      if (pair) compare_with_nvml(reply, *pair, sums);
      std::string key = fmt::format("p2p.pair.{}.{}.", a, b);
      facts.set(FactName::unchecked(key + "status"), verdict.status, src);
      facts.set(FactName::unchecked(key + "detail"), verdict.detail, src);
      if (pair && pair->duration_us && verdict.status != "not-tested") {
        facts.set(FactName::unchecked(key + "duration_us"), *pair->duration_us, src);
        sums.duration_us_max = std::max(sums.duration_us_max, *pair->duration_us);
      }
      if (std::string nvml = nvml_text(reply, a, b); !nvml.empty()) facts.set(FactName::unchecked(key + "nvml"), nvml, src);
    }
  }
  set_sums(facts, sums, gpus);
  record_peer_bandwidth(reply, facts, n);  // --p2p-bandwidth only
}

}  // namespace gd
