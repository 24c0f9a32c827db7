#include "report/markdown_budget.hpp"

#include <algorithm>

namespace gd::md {

std::string left_out_list(std::span<const Cut> cuts, std::size_t items_per_kind) {
  // Kinds in the order of their first cut, each with its items.
  std::vector<std::pair<std::string, std::vector<std::string>>> kinds;
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const Cut& cut = cuts[i];
    bool cut_again = std::any_of(cuts.begin() + static_cast<std::ptrdiff_t>(i) + 1, cuts.end(),
                                 [&](const Cut& later) { return later.part == cut.part; });
    if (cut_again) continue;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == cut.kind; });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), {cut.kind, {}});
    if (!cut.item.empty()) it->second.push_back(cut.item);
  }
  std::string out;
  for (const auto& [kind, items] : kinds) {
    out += (out.empty() ? "" : "; ") + kind;
    for (std::size_t i = 0; i < items.size() && i < items_per_kind; ++i) out += (i ? ", " : " ") + items[i];
    if (items.size() > items_per_kind) out += " and " + std::to_string(items.size() - items_per_kind) + " more";
  }
  return out;
}

std::string join(const std::vector<Part>& parts) {
  std::string out;
  for (const Part& part : parts) out += part.forms[part.form];
  return out;
}

}  // namespace gd::md
