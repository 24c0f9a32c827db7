#include "core/layer.hpp"

#include "core/all_layers.hpp"

namespace gd {

std::string_view to_string(LayerKind kind) {
  switch (kind) {
    case LayerKind::host: return "host";
    case LayerKind::image: return "image";
    case LayerKind::environment: return "environment";
    case LayerKind::cross_check: return "cross-check";
  }
  return "?";
}

// The longest prefix wins, so that the container's env.nvidia_ beats the environment's env.,
// whichever row comes first.
const Layer* layer_of_fact(std::string_view fact) {
  const Layer* best = nullptr;
  std::size_t best_length = 0;
  for (const Layer& layer : all_layers()) {
    for (std::string_view prefix : layer.fact_prefixes) {
      if (prefix.size() > best_length && fact.starts_with(prefix)) {
        best = &layer;
        best_length = prefix.size();
      }
    }
  }
  return best;
}

const Layer* layer_of_area(std::string_view area) {
  for (const Layer& layer : all_layers()) {
    for (std::string_view name : layer.areas) {
      if (name == area) return &layer;
    }
  }
  return nullptr;
}

std::vector<std::string_view> layer_areas() {
  std::vector<std::string_view> out;
  for (const Layer& layer : all_layers()) out.insert(out.end(), layer.areas.begin(), layer.areas.end());
  return out;
}

}  // namespace gd
