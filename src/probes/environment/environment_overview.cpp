// The environment line: the variables CUDA reads.
#include "probes/environment/environment_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine environment_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  std::vector<std::string> parts;
  for (auto [fact, variable] : {std::pair{"env.cuda_visible_devices"_fact, "CUDA_VISIBLE_DEVICES"},
                                std::pair{"env.ld_library_path"_fact, "LD_LIBRARY_PATH"}, std::pair{"env.ld_preload"_fact, "LD_PRELOAD"}}) {
    if (auto value = facts.get_string(fact)) {
      parts.push_back(fmt::format("{}={}", variable, *value));
    }
  }
  line.summary = parts.empty() ? "no CUDA-related variables set" : fmt::format("{}", fmt::join(parts, ", "));
  // NCCL's configuration files set variables for every job that does not set them itself.
  if (const Fact* settings = facts.find("env.nccl_conf.settings"_fact); settings && settings->state == FactState::present) {
    const auto& lines = std::get<std::vector<std::string>>(settings->value);
    if (!lines.empty()) line.summary += fmt::format("; NCCL's configuration files: {}", fmt::join(lines, ", "));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
