// The overview line of the p2p layer (p2p.* facts, recorded from the helper's pair proof by
// probes/cuda/peer_pairs): how many ordered pairs of GPUs were proven by a copy that was read
// back and checked, and what failed.

#include "probes/p2p/p2p_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd::areas {
namespace {

std::int64_t count_of(const FactSet& facts, FactName name) { return facts.get_int(name).value_or(0); }

/// Each entry of a list fact as a detail line.
void add_details(AreaLine& line, const FactSet& facts, FactName name, std::string_view what) {
  const Fact* fact = facts.find(name);
  if (!fact || fact->state != FactState::present) return;
  if (const auto* items = std::get_if<std::vector<std::string>>(&fact->value)) {
    for (const std::string& item : *items) line.details.push_back(fmt::format("{}: {}", what, item));
  }
}

/// "41.9 GB/s" from MB/s.
std::string gb_per_s(std::int64_t mb_per_s) { return fmt::format("{:.1f} GB/s", static_cast<double>(mb_per_s) / 1000.0); }

/// --p2p-bandwidth: "bandwidth 38.2 GB/s min, 41.0 GB/s median (56 pairs)" in the summary, the
/// slowest pair and the pairs without a figure as details; nothing when it was not asked for.
void add_bandwidth(std::vector<std::string>& parts, const FactSet& facts) {
  std::optional<std::int64_t> measured = facts.get_int("p2p.bandwidth_pairs_measured"_fact);
  if (!measured) return;
  std::optional<std::int64_t> min = facts.get_int("p2p.bandwidth_mb_per_s_min"_fact);
  std::optional<std::int64_t> median = facts.get_int("p2p.bandwidth_mb_per_s_median"_fact);
  if (*measured > 0 && min && median) {
    parts.push_back(fmt::format("bandwidth {} min, {} median ({})", gb_per_s(*min), gb_per_s(*median),
                                plural(*measured, "pair")));
  } else {
    parts.push_back("bandwidth not measured");
  }
}

void add_bandwidth_details(AreaLine& line, const FactSet& facts) {
  std::optional<std::int64_t> min = facts.get_int("p2p.bandwidth_mb_per_s_min"_fact);
  std::optional<std::string> slowest = facts.get_string("p2p.bandwidth_slowest_pair"_fact);
  if (min && slowest) line.details.push_back(fmt::format("slowest pair: {}: {}", *slowest, gb_per_s(*min)));
  add_details(line, facts, "p2p.bandwidth_not_measured"_fact, "bandwidth not measured");
}

}  // namespace

AreaLine p2p_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  std::optional<std::int64_t> gpus = facts.get_int("p2p.gpu_count"_fact);
  if (!gpus) {
    line.status = AreaStatus::skipped;
    line.summary = "not checked: " + unknown_reason(facts, "p2p.gpu_count"_fact);
    return line;
  }
  if (*gpus < 2) {
    line.summary = *gpus == 1 ? "1 GPU: no peers" : "no GPU: no peers";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  std::optional<std::int64_t> pairs = facts.get_int("p2p.pairs"_fact);
  if (!pairs) {
    line.status = AreaStatus::unknown;
    line.summary = fmt::format("{}, pairs not checked: {}", plural(*gpus, "GPU"), unknown_reason(facts, "p2p.pairs"_fact));
    return line;
  }
  if (facts.get_bool("p2p.no_access_at_all"_fact) == true) {
    line.summary = fmt::format("{}, no pair has peer access (NCCL goes through host memory)", plural(*gpus, "GPU"));
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  const std::int64_t proven = count_of(facts, "p2p.pairs_proven"_fact);
  const std::int64_t nvlink = count_of(facts, "p2p.nvlink_pairs"_fact);
  std::vector<std::string> parts;
  parts.push_back(fmt::format("{} {} proven{} (copy-verify)", proven == *pairs ? "" : fmt::format("{} of", proven),
                              plural(*pairs, "pair"), nvlink == *pairs && proven > 0 ? " over NVLink" : ""));
  if (parts.back().starts_with(" ")) parts.back().erase(0, 1);
  const std::pair<FactName, std::string_view> others[] = {
      {"p2p.pairs_wrong_count"_fact, "data wrong"},
      {"p2p.pairs_enable_failed_count"_fact, "enable failed"},
      {"p2p.pairs_copy_failed_count"_fact, "copy failed"},
      {"p2p.pairs_no_access_count"_fact, "without peer access"},
      {"p2p.pairs_not_tested_count"_fact, "not tested"},
  };
  for (const auto& [name, what] : others) {
    if (std::int64_t n = count_of(facts, name); n > 0) parts.push_back(fmt::format("{} {}", n, what));
  }
  add_bandwidth(parts, facts);
  line.summary = fmt::format("{}", fmt::join(parts, ", "));
  add_details(line, facts, "p2p.pairs_wrong"_fact, "data wrong");
  add_details(line, facts, "p2p.pairs_enable_failed"_fact, "enable failed");
  add_details(line, facts, "p2p.pairs_copy_failed"_fact, "copy failed");
  add_details(line, facts, "p2p.pairs_not_tested"_fact, "not tested");
  add_details(line, facts, "p2p.capability_mismatch"_fact, "CUDA and NVML disagree");
  add_bandwidth_details(line, facts);
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
