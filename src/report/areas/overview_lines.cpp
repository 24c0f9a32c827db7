// The overview's lines in the layers' order (core/all_layers.hpp): each row's builder (its
// layer's folder, probes/<layer>/<layer>_overview.cpp), then "Other" for a finding no line answers for.
#include <algorithm>

#include <fmt/format.h>

#include "core/all_layers.hpp"
#include "core/overview.hpp"
#include "report/report.hpp"

namespace gd {

std::vector<AreaLine> build_area_lines(const FactSet& facts, const std::vector<Finding>& findings) {
  using namespace areas;
  // From the PCI slot up to the user's environment.
  std::vector<AreaLine> lines;
  for (const Layer& layer : all_layers()) {
    if (layer.overview) lines.push_back(layer.overview(layer, facts, findings));
  }
  // A finding whose area no line answers for still marks the overview, on a line of its own (a
  // rule cannot name such an area: the loader refuses it; a finding made elsewhere could).
  std::vector<Finding> unclaimed;
  for (const auto& finding : findings) {
    bool claimed = std::any_of(all_layers().begin(), all_layers().end(),
                               [&](const Layer& layer) { return layer.overview && answers_for(layer, finding.area); });
    if (!claimed) {
      unclaimed.push_back(finding);
    }
  }
  if (!unclaimed.empty()) {
    std::vector<std::string> ids;
    for (const auto& finding : unclaimed) {
      ids.push_back(finding.id);
    }
    bool any_error = std::any_of(unclaimed.begin(), unclaimed.end(), [](const Finding& f) { return f.severity == Severity::error; });
    bool any_warning =
        std::any_of(unclaimed.begin(), unclaimed.end(), [](const Finding& f) { return f.severity == Severity::warning; });
    AreaStatus status = any_error ? AreaStatus::error : any_warning ? AreaStatus::warning : AreaStatus::info;
    lines.push_back(AreaLine{"other", "Other", status, fmt::format("{}", fmt::join(ids, ", ")), {}});
  }
  return lines;
}

}  // namespace gd
