// The driver libraries line: the libcuda and NVML the loader would pick.
#include "probes/libraries/libraries_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine libraries_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto resolved = facts.get_string("lib.libcuda.resolved"_fact);
  // A file is there but broken: never "not on the search path" (libraries.libcuda-unloadable).
  auto broken = facts.get_string("lib.libcuda.unloadable_path"_fact);
  if (broken && !resolved) {
    line.status = status_for(findings, layer, AreaStatus::error);
    line.summary = fmt::format("libcuda.so.1 → {} cannot be loaded ({}, {} bytes)", *broken,
                               facts.get_string("lib.libcuda.unloadable"_fact).value_or("?"),
                               facts.get_int("lib.libcuda.unloadable_size"_fact).value_or(0));
    return line;
  }
  if (!resolved) {
    const Fact* fact = facts.find("lib.libcuda.resolved"_fact);
    bool absent = fact && fact->state == FactState::absent;
    line.status = status_for(findings, layer, absent ? AreaStatus::warning : AreaStatus::unknown);
    line.summary = absent ? "libcuda.so.1 is not on the loader's search path" : "unknown: " + unknown_reason(facts, "lib.libcuda.resolved"_fact);
    return line;
  }
  line.summary = fmt::format("libcuda.so.1 → {}", *resolved);
  if (auto via = facts.get_string("lib.libcuda.resolved_via"_fact)) {
    line.summary += fmt::format(" (via {})", *via);
  }
  if (facts.get_bool("lib.libcuda.matches_loaded"_fact) == false) {
    line.summary += fmt::format("; but CUDA loaded {}", facts.get_string("cuda.libcuda.path"_fact).value_or("another file"));
  }
  auto versions = list_of(facts, "lib.libcuda.versions"_fact);
  if (versions.size() > 1) {
    line.summary += fmt::format("; versions on the path: {}", fmt::join(versions, ", "));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
