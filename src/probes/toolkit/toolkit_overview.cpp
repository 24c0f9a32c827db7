// The toolkit line: the CUDA toolkit an extension build would use.
#include "probes/toolkit/toolkit_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine toolkit_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto path = facts.get_string("toolkit.build.path"_fact);
  if (!path) {
    const Fact* fact = facts.find("toolkit.build.path"_fact);
    bool absent = fact && fact->state == FactState::absent;
    if (is_left_out(facts, "toolkit.build.path"_fact)) {
      line.summary = unknown_reason(facts, "toolkit.build.path"_fact);
      line.status = AreaStatus::skipped;
      return line;
    }
    line.summary = absent ? "none found (only needed to build CUDA code)" : "unknown: " + unknown_reason(facts, "toolkit.build.path"_fact);
    line.status = status_for(findings, layer, absent ? AreaStatus::skipped : AreaStatus::unknown);
    return line;
  }
  auto version = facts.get_string("toolkit.build.version"_fact);
  line.summary = fmt::format("CUDA {} at {} (via {})", version.value_or("version unknown"), *path,
                             facts.get_string("toolkit.build.via"_fact).value_or("?"));
  if (auto compiler = facts.get_string("toolkit.build.host_compiler"_fact)) line.summary += ", host compiler " + *compiler;
  auto all = list_of(facts, "toolkit.list"_fact);
  if (all.size() > 1) line.details = all;
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
