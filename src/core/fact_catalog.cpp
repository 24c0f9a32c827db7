#include "core/fact_catalog.hpp"

#include "core/all_layers.hpp"

#include "util/spelling.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <vector>

namespace gd {
namespace {

const std::vector<FactSpec>& all_specs() {
  static const std::vector<FactSpec> specs = [] {
    std::vector<FactSpec> out;
    // Each layer's sections, in the layers' order (core/all_layers.hpp).
    for (const Layer& layer : all_layers()) {
      for (CatalogSection section : layer.sections) {
        auto facts = section();
        out.insert(out.end(), facts.begin(), facts.end());
      }
    }
    return out;
  }();
  return specs;
}

/// `name` with every all-digit segment replaced by `*`: the catalogue key it would match.
std::string pattern_key(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    std::string_view segment = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    bool digits = !segment.empty() &&
                  std::all_of(segment.begin(), segment.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!key.empty()) {
      key += '.';
    }
    key += digits ? std::string_view("*") : segment;
    if (dot == std::string_view::npos) {
      break;
    }
    start = dot + 1;
  }
  return key;
}

/// Every catalogue name (patterns as written, with `*`) → its spec. Looking a fact up is then one
/// hash lookup instead of a scan of the whole catalogue (every fact set and every rule loaded
/// does one).
const std::unordered_map<std::string_view, FactSpec>& spec_index() {
  static const std::unordered_map<std::string_view, FactSpec> index = [] {
    std::unordered_map<std::string_view, FactSpec> out;
    for (const FactSpec& spec : all_specs()) {
      out.emplace(spec.name, spec);
    }
    return out;
  }();
  return index;
}

}  // namespace

std::span<const FactSpec> fact_catalog() { return all_specs(); }

std::optional<FactSpec> find_fact_spec(std::string_view name) {
  if (name.find('*') != std::string_view::npos) {
    return std::nullopt;  // a pattern names a family of facts, never one fact
  }
  const auto& index = spec_index();
  if (auto it = index.find(name); it != index.end()) {
    return it->second;
  }
  std::string key = pattern_key(name);
  if (key != name) {
    if (auto it = index.find(key); it != index.end()) {
      return it->second;
    }
  }
  return std::nullopt;
}

std::string_view closest_fact_name(std::string_view name) {
  std::vector<std::string_view> names;
  for (const FactSpec& spec : all_specs()) {
    names.push_back(spec.name);
  }
  return closest_name(name, names);
}

}  // namespace gd
