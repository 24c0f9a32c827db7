#pragma once
// "Did you mean" suggestions for names the user typed (ninja SpellcheckStringV).

#include <cstddef>
#include <string_view>

namespace gd {

/// Levenshtein distance: insertions, deletions and substitutions each cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Farther than this many edits is no suggestion.
inline constexpr std::size_t k_max_suggestion_distance = 3;

/// The candidate closest to `name` within k_max_suggestion_distance edits, or empty.
template <typename Range>
std::string_view closest_name(std::string_view name, const Range& candidates) {
  std::string_view best;
  std::size_t best_distance = k_max_suggestion_distance + 1;
  for (std::string_view candidate : candidates) {
    std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace gd
