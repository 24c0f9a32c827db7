#include "report/verdict.hpp"

#include <fmt/format.h>

#include <vector>
#include "core/fact_key.hpp"

namespace gd {
namespace {

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Which of the helper's two parts a check that could not decide was waiting for: CUDA (a cuda.*
// fact is unknown), NVML (an nvml.* fact), or both.
struct HelperGap {
  bool cuda = false;
  bool nvml = false;
};

HelperGap helper_gap(const Inconclusive& item) {
  HelperGap gap;
  for (const Evidence& e : item.unknown_facts) {
    gap.cuda = gap.cuda || e.fact.starts_with("cuda.");
    gap.nvml = gap.nvml || e.fact.starts_with("nvml.");
  }
  return gap;
}

}  // namespace

std::string_view to_string(Verdict::Kind kind) {
  switch (kind) {
    case Verdict::Kind::healthy: return "healthy";
    case Verdict::Kind::incomplete: return "incomplete";
    case Verdict::Kind::problems: return "problems";
  }
  return "problems";
}

Verdict verdict_of(const Report& report) {
  int errors = report.count(Severity::error);
  int warnings = report.count(Severity::warning);
  int infos = report.count(Severity::info);
  Verdict v;
  if (errors > 0 || warnings > 0) {
    v.kind = Verdict::Kind::problems;
    v.text = fmt::format("Found {} and {}.", plural(errors, "error", "errors"), plural(warnings, "warning", "warnings"));
    std::size_t unconfirmed = 0;
    for (const Finding& f : report.findings) unconfirmed += f.confirmed ? 0 : 1;
    if (unconfirmed > 0) {
      v.text += unconfirmed == report.findings.size()
                    ? std::string(" None is confirmed by CUDA.")
                    : fmt::format(" {} not confirmed by CUDA.", plural(unconfirmed, "is", "are"));
    }
    v.text += " The first finding is the most likely cause.";
    return v;
  }
  // A pre-flight judged the image only: the host layers were given, not checked. What of the
  // image's Python it did not check (py.not_checked) is said, never "No problem found" over it.
  if (auto gpu = report.facts.get_string("target.gpu"_fact)) {
    v.kind = Verdict::Kind::incomplete;
    std::string driver = report.facts.get_string("target.driver"_fact).value_or("?");
    std::string notes = infos ? fmt::format(" ({})", plural(static_cast<std::size_t>(infos), "note", "notes")) : "";
    std::vector<std::string> not_checked;
    const Fact* fact = report.facts.find("py.not_checked"_fact);
    if (fact && fact->state == FactState::present) {
      if (const auto* list = std::get_if<std::vector<std::string>>(&fact->value)) not_checked = *list;
    }
    if (fact && fact->state == FactState::unknown) {  // the Python probe did not run (--scope node)
      v.text = fmt::format("No problem confirmed in the image for the target ({}, driver {}): its Python was {}. The "
                           "host itself was not read.{}",
                           *gpu, driver, fact->reason, notes);
    } else if (not_checked.empty()) {
      v.text = fmt::format("No problem found in the image for the target ({}, driver {}); the host itself was not read.{}",
                           *gpu, driver, notes);
    } else {
      v.text = fmt::format("No problem confirmed in the image for the target ({}, driver {}): not all of its Python was "
                           "checked: {}. The host itself was not read.{}",
                           *gpu, driver, fmt::join(not_checked, "; "), notes);
    }
    return v;
  }
  bool cuda_not_run = false;
  std::size_t flagged = 0, unknown = 0;
  for (const AreaLine& area : report.areas) {
    if (area.id == "cuda" && area.status == AreaStatus::skipped) cuda_not_run = true;
    if (area.status == AreaStatus::warning || area.status == AreaStatus::error) ++flagged;
    if (area.status == AreaStatus::unknown) ++unknown;
  }
  std::size_t need_cuda = 0;
  HelperGap missing;  // the parts whose answer those checks lack
  for (const Inconclusive& item : report.inconclusive) {
    HelperGap gap = helper_gap(item);
    need_cuda += gap.cuda || gap.nvml ? 1 : 0;
    missing.cuda = missing.cuda || gap.cuda;
    missing.nvml = missing.nvml || gap.nvml;
  }
  std::size_t other = report.inconclusive.size() - need_cuda;
  std::vector<std::string> gaps;
  if (need_cuda > 0) {
    std::string_view whose = missing.cuda && missing.nvml ? " CUDA's and NVML's answers"
                             : missing.nvml               ? " NVML's answer"
                                                          : " CUDA's answer";
    gaps.push_back(plural(need_cuda, "check needs", "checks need") +
                   (cuda_not_run ? std::string(" CUDA, which was not run") : std::string(whose) + ", which this run did not give"));
  } else if (cuda_not_run) {
    gaps.push_back("CUDA was not run");
  }
  if (other > 0) gaps.push_back(plural(other, need_cuda ? "other check" : "check", need_cuda ? "other checks" : "checks") + " could not decide");
  if (flagged > 0) gaps.push_back(plural(flagged, "layer is", "layers are") + " flagged above");
  if (unknown > 0) gaps.push_back(plural(unknown, "layer is", "layers are") + " unknown");
  // A GPU another job holds was not proven: never "No node problems found" about it.
  if (auto busy = report.facts.get_int("cuda.context.busy_count"_fact); busy && *busy > 0) {
    gaps.push_back(plural(static_cast<std::size_t>(*busy), "GPU is", "GPUs are") + " busy with other processes' work and not proven");
  }
  std::string notes = infos ? fmt::format(" ({})", plural(static_cast<std::size_t>(infos), "note", "notes")) : "";
  std::string what = report.run.scope == RunScope::node ? "node problems" : "problems";
  if (gaps.empty()) {
    v.kind = Verdict::Kind::healthy;
    v.text = fmt::format("No {} found.{}", what, notes);
    return v;
  }
  v.kind = Verdict::Kind::incomplete;
  v.text = fmt::format("No problem confirmed; {}.{}", fmt::format("{}", fmt::join(gaps, ", ")), notes);
  return v;
}

}  // namespace gd
