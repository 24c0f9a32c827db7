#pragma once
// How `gpudoctor diff` orders and filters facts: each fact belongs to the layer of the overview
// it describes (the overview's order: PCI, kernel module, device nodes, ... environment; then the
// system, then anything a newer report has that this version does not know), and some facts
// differ on every run or every node without saying anything about health (timings, PIDs, UUIDs,
// the host's own name): those are volatile, left out of a diff unless -v. Pure tables.

#include <cstddef>
#include <span>
#include <string_view>

namespace gd {

struct DiffLayer {
  std::string_view id;     ///< the overview line's id ("driver"), or "system", "other"
  std::string_view title;  ///< the overview line's title
};

/// Every layer, in the order a diff prints them.
std::span<const DiffLayer> diff_layers();

/// Index into diff_layers() of the layer `fact` belongs to ("other" for an unknown name).
std::size_t diff_layer_of(std::string_view fact);

struct VolatileFact {
  std::string_view pattern;  ///< a fact name; `*` stands for one segment (a GPU's ordinal)
  std::string_view why;
};

/// The explicit list of volatile facts.
std::span<const VolatileFact> volatile_facts();

bool is_volatile_fact(std::string_view fact);

/// Whether `fact` matches `pattern` (`*` matches exactly one dot-separated segment).
bool fact_matches(std::string_view pattern, std::string_view fact);

}  // namespace gd
