#include "core/fact_catalog.hpp"

#include "core/catalog/sections.hpp"

#include "util/spelling.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace gd {
namespace {

// One row per fact: name, type, meaning. Probes set them; rules name them.
// The sections, in catalogue order (core/catalog/*.cpp).
constexpr std::span<const FactSpec> (*k_sections[])() = {
    catalog::host_facts,    catalog::pci_facts,       catalog::driver_facts,  catalog::firmware_facts,
    catalog::device_facts,  catalog::container_facts, catalog::library_facts, catalog::system_facts,
    catalog::kernel_log_facts, catalog::cuda_facts,
};

const std::vector<FactSpec>& all_specs() {
  static const std::vector<FactSpec> specs = [] {
    std::vector<FactSpec> out;
    for (auto section : k_sections) {
      auto facts = section();
      out.insert(out.end(), facts.begin(), facts.end());
    }
    return out;
  }();
  return specs;
}

// `pattern` may contain `*` segments that match one all-digit segment of `name`.
bool name_matches(std::string_view pattern, std::string_view name) {
  while (true) {
    std::size_t pdot = pattern.find('.');
    std::size_t ndot = name.find('.');
    std::string_view pseg = pattern.substr(0, pdot);
    std::string_view nseg = name.substr(0, ndot);
    if (pseg == "*") {
      if (nseg.empty() || !std::all_of(nseg.begin(), nseg.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        return false;
      }
    } else if (pseg != nseg) {
      return false;
    }
    if (pdot == std::string_view::npos || ndot == std::string_view::npos) {
      return pdot == ndot;
    }
    pattern.remove_prefix(pdot + 1);
    name.remove_prefix(ndot + 1);
  }
}

}  // namespace

std::span<const FactSpec> fact_catalog() { return all_specs(); }

std::optional<FactSpec> find_fact_spec(std::string_view name) {
  for (const FactSpec& spec : all_specs()) {
    if (name_matches(spec.name, name)) {
      return spec;
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
