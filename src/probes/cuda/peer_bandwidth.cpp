#include "probes/cuda/peer_bandwidth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/cuda/peer_scope.hpp"

namespace gd {
namespace {

constexpr std::string_view k_src = "helper:peer-bandwidth";

/// "cuMemcpyPeerAsync failed: 700 CUDA_ERROR_ILLEGAL_ADDRESS".
std::string failed_call_text(const HelperPeerPair& pair) {
  return fmt::format("{} failed: {}", pair.bandwidth_call.value_or("a timed copy"), peer_call_text(pair.bandwidth));
}

/// Why a proven pair has no figure when the reply has none of its bandwidth lines: its source's
/// thread hung or crashed in (or before) its timed copies, or the reply ends before them.
std::string not_reached(const HelperReply& reply, int a, int b) {
  for (const HelperPeerSource& source : reply.peer_sources) {
    if (source.index != a) continue;
    const std::optional<std::string>& step = source.stuck ? source.stuck : source.crashed;
    if (!step) break;
    // "peer-bandwidth:3" (stuck), "SIGSEGV in peer-bandwidth:3" (crashed): the step names the destination.
    bool this_pair = step->find("peer-bandwidth") != std::string::npos && step->ends_with(fmt::format(":{}", b));
    if (source.stuck) {
      return this_pair ? fmt::format("hung (still in {} at the deadline)", *step)
                       : fmt::format("not timed: GPU {}'s thread hung (in {})", a, *step);
    }
    return this_pair ? fmt::format("the driver crashed in its timed copies ({})", *step)
                     : fmt::format("not timed: the driver crashed in GPU {}'s thread ({})", a, *step);
  }
  return "the helper's reply ends before its timed copies";
}

/// The median of sorted figures (the mean of the middle two for an even count).
std::int64_t median_of(const std::vector<std::int64_t>& sorted) {
  std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

}  // namespace

std::optional<std::int64_t> peer_bandwidth_mb_per_s(std::int64_t bytes, std::int64_t copies, std::int64_t elapsed_ns) {
  if (bytes <= 0 || copies <= 0 || elapsed_ns <= 0) return std::nullopt;
  // bytes per ns is GB/s; in double: a reply's numbers may be anything, the product must not overflow.
  double mb_per_s = static_cast<double>(bytes) * static_cast<double>(copies) * 1000.0 / static_cast<double>(elapsed_ns);
  if (!std::isfinite(mb_per_s) || mb_per_s >= 1.0e12) return std::nullopt;  // 1 PB/s: not a measurement
  return static_cast<std::int64_t>(std::llround(mb_per_s));
}

void record_peer_bandwidth(const HelperReply& reply, FactSet& facts, int gpus) {
  if (!reply.peer_bandwidth_bytes) return;  // not asked for (--p2p-bandwidth), or a helper before 1.4
  const std::string src(k_src);
  const std::int64_t bytes = *reply.peer_bandwidth_bytes;
  std::vector<std::int64_t> figures;
  std::string slowest;
  std::int64_t slowest_figure = 0;
  std::vector<std::string> not_measured;
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      if (!in_peer_scope(a, b, gpus)) continue;
      const std::string name_text = fmt::format("p2p.pair.{}.{}.bandwidth_mb_per_s", a, b);
      const std::string status_name = fmt::format("p2p.pair.{}.{}.status", a, b);
      const FactName name = FactName::unchecked(name_text);  // a view: the strings above hold it
      std::optional<std::string> status = facts.get_string(FactName::unchecked(status_name));
      if (status != "proven") {
        facts.set_absent(name, src, fmt::format("no timed copies: the pair is {}", status.value_or("not known")));
        continue;
      }
      std::string pair_text = peer_pair_name(reply, a, b);
      const HelperPeerPair* pair = find_peer_pair(reply, a, b);
      std::string why;
      std::optional<std::int64_t> figure;
      if (pair && pair->bandwidth_copies && pair->bandwidth_elapsed_ns) {
        figure = peer_bandwidth_mb_per_s(bytes, *pair->bandwidth_copies, *pair->bandwidth_elapsed_ns);
        if (!figure) why = fmt::format("{} copies timed at {} ns: no figure", *pair->bandwidth_copies, *pair->bandwidth_elapsed_ns);
      } else if (pair && pair->bandwidth_skipped) {
        why = *pair->bandwidth_skipped;
      } else if (pair && pair->bandwidth.result) {
        why = failed_call_text(*pair);
      } else {
        why = not_reached(reply, a, b);
      }
      if (!figure) {
        facts.set_unknown(name, why, src);
        not_measured.push_back(fmt::format("{}: {}", pair_text, why));
        continue;
      }
      facts.set(name, *figure, src);
      figures.push_back(*figure);
      if (slowest.empty() || *figure < slowest_figure) {
        slowest = pair_text;
        slowest_figure = *figure;
      }
    }
  }
  facts.set("p2p.bandwidth_copy_bytes"_fact, bytes, src);
  facts.set("p2p.bandwidth_pairs_measured"_fact, static_cast<std::int64_t>(figures.size()), src);
  facts.set("p2p.bandwidth_not_measured"_fact, not_measured, src);
  facts.set("p2p.bandwidth_not_measured_count"_fact, static_cast<std::int64_t>(not_measured.size()), src);
  if (figures.empty()) {
    for (FactName name : {"p2p.bandwidth_mb_per_s_min"_fact, "p2p.bandwidth_mb_per_s_median"_fact,
                          "p2p.bandwidth_mb_per_s_max"_fact, "p2p.bandwidth_slowest_pair"_fact}) {
      facts.set_absent(name, src, "no pair was timed");
    }
    return;
  }
  std::sort(figures.begin(), figures.end());
  facts.set("p2p.bandwidth_mb_per_s_min"_fact, figures.front(), src);
  facts.set("p2p.bandwidth_mb_per_s_median"_fact, median_of(figures), src);
  facts.set("p2p.bandwidth_mb_per_s_max"_fact, figures.back(), src);
  facts.set("p2p.bandwidth_slowest_pair"_fact, slowest, src);
}

}  // namespace gd
