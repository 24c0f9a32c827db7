#pragma once
// Fitting a document into a size limit by leaving out detail in a fixed order (the Markdown
// report and GitHub's comment limit). The document is a row of parts; each part can take a few
// forms, from the whole to the smallest (which may be empty). A plan of cuts, least important
// first, moves parts to smaller forms one at a time until the parts and a note naming what was
// left out fit.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gd::md {

struct Part {
  std::vector<std::string> forms;  ///< the whole first, then smaller ones
  std::size_t form = 0;            ///< the form the document uses
};

/// One cut: `part` goes to its form `form`. `kind` and `item` say what left ("the facts of",
/// "`nvml.*` (212)"; an empty item: the kind alone): the note lists the items of one kind together.
struct Cut {
  std::size_t part = 0;
  std::size_t form = 0;
  std::string kind;
  std::string item;
};

/// The note for the cuts made: "<kind> <item>, <item> and 3 more; <kind> <item>", with at most
/// `items_per_kind` items of each kind. Only a part's last cut counts (a finding left out whole
/// is not also listed among those that lost their evidence). Empty when no cut was made.
std::string left_out_list(std::span<const Cut> cuts, std::size_t items_per_kind);

/// Makes the cuts of `plan` in order until size(parts) + size(note(cuts made)) <= max_bytes, or the
/// plan ends. Returns how many cuts were made.
template <typename Note>
std::size_t fit(std::vector<Part>& parts, std::span<const Cut> plan, std::size_t max_bytes, const Note& note) {
  auto size = [&](std::size_t cuts_made) {
    std::size_t total = note(plan.first(cuts_made)).size();
    for (const Part& part : parts) total += part.forms[part.form].size();
    return total;
  };
  std::size_t made = 0;
  while (made < plan.size() && size(made) > max_bytes) {
    parts[plan[made].part].form = plan[made].form;
    ++made;
  }
  return made;
}

/// The parts in their current forms, joined.
std::string join(const std::vector<Part>& parts);

}  // namespace gd::md
