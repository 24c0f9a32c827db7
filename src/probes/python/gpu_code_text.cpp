#include "probes/python/gpu_code_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <vector>

#include "core/overview.hpp"

namespace gd::areas {
namespace {

/// "sm_90a 4/444" -> {"sm_90a", 4}; entries that do not read so are left out.
std::map<std::string, std::int64_t> counts_of(const std::vector<std::string>& entries) {
  std::map<std::string, std::int64_t> out;
  for (const std::string& entry : entries) {
    std::size_t space = entry.find(' ');
    std::size_t slash = entry.find('/', space == std::string::npos ? 0 : space);
    if (space == std::string::npos || slash == std::string::npos) continue;
    std::int64_t count = 0;
    auto [ptr, ec] = std::from_chars(entry.data() + space + 1, entry.data() + slash, count);
    if (ec == std::errc() && ptr == entry.data() + slash) out[entry.substr(0, space)] = count;
  }
  return out;
}

std::string in_how_many(std::int64_t low, std::int64_t high, std::int64_t total) {
  if (total == 1 && low == 1) return "in its one fat binary";
  if (low == total) return fmt::format("in all {} fat binaries", total);
  if (low == high) return fmt::format("in {} of {} fat binaries", low, total);
  return fmt::format("in {} to {} of {} fat binaries", low, high, total);
}

}  // namespace

std::optional<std::string> gpu_code_text(const FactSet& facts, std::string_view prefix) {
  // torch.* or ext.N.*: families with the same fields (probes/python/gpu_code_coverage.hpp).
  const std::string p(prefix);
  auto fact = [&p](std::string_view field) { return BuiltFactName(p + std::string(field)); };
  auto with_code = facts.get_int(fact("fatbins_with_code"));
  if (!with_code || !facts.is_present(fact("sass_covering")) || !facts.is_present(fact("ptx_covering"))) {
    return std::nullopt;
  }
  const auto counts = counts_of(list_of(facts, fact("fatbin_arch_counts")));
  auto count = [&counts](const std::string& name) {
    auto it = counts.find(name);
    return it == counts.end() ? std::int64_t{0} : it->second;
  };
  const auto sass = list_of(facts, fact("sass_covering"));
  const auto ptx = list_of(facts, fact("ptx_covering"));
  std::string text = fmt::format("{}", fmt::join(sass, " "));
  if (!ptx.empty()) text += fmt::format("{}PTX {}", sass.empty() ? "" : "; ", fmt::join(ptx, " "));
  std::vector<std::int64_t> covering_counts;
  for (const auto* names : {&sass, &ptx}) {
    for (const std::string& name : *names) covering_counts.push_back(count(name));
  }
  if (!covering_counts.empty()) {
    auto [low, high] = std::minmax_element(covering_counts.begin(), covering_counts.end());
    text += " (" + in_how_many(*low, *high, *with_code) + ")";
  }
  std::vector<std::string> few;
  for (const char* kind : {"sass_partial", "ptx_partial"}) {
    for (const std::string& name : list_of(facts, fact(kind))) few.push_back(fmt::format("{} ({})", name, count(name)));
  }
  if (!few.empty()) text += fmt::format("{}also in a few: {}", text.empty() ? "" : "; ", fmt::join(few, ", "));
  return text;
}

}  // namespace gd::areas
