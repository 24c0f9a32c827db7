#include "probes/python/gpu_code_coverage.hpp"

#include <algorithm>

namespace gd {
namespace {

// The suffixes of the facts set here, after a prefix ("torch.", "ext.0.").
constexpr std::string_view k_suffixes[] = {"sass_covering", "sass_partial", "ptx_covering", "ptx_partial",
                                           "fatbin_arch_counts", "fatbins_with_code"};

std::vector<ArchCoverage> coverage_of(std::string_view prefix, const std::vector<FatbinArchCount>& counts,
                                      std::uint32_t with_code) {
  std::vector<ArchCoverage> out;
  for (const FatbinArchCount& count : counts) {
    out.push_back({fatbin_arch_name(prefix, count.arch), count.containers, covers_library(count.containers, with_code)});
  }
  return out;
}

std::vector<std::string> names_where(const std::vector<ArchCoverage>& archs, bool covering) {
  std::vector<std::string> out;
  for (const ArchCoverage& arch : archs) {
    if (arch.covering == covering) out.push_back(arch.name);
  }
  return out;
}

std::string joined(std::string_view prefix, std::string_view suffix) { return std::string(prefix) + std::string(suffix); }

}  // namespace

bool covers_library(std::uint32_t containers, std::uint32_t with_code) {
  // At least half; 64-bit so that no count can overflow the doubling.
  return with_code > 0 && 2 * static_cast<std::uint64_t>(containers) >= with_code;
}

GpuCodeCoverage gpu_code_coverage(const FatbinScan& scan) {
  GpuCodeCoverage out;
  out.with_code = scan.containers_with_code;
  out.sass = coverage_of("sm", scan.sass_containers, out.with_code);
  out.ptx = coverage_of("compute", scan.ptx_containers, out.with_code);
  auto covering = [](const ArchCoverage& arch) { return arch.covering; };
  out.common_list = std::any_of(out.sass.begin(), out.sass.end(), covering) ||
                    std::any_of(out.ptx.begin(), out.ptx.end(), covering);
  if (!out.common_list) {
    // No architecture list that the fat binaries share: each one is built for its own, and none
    // can be told apart as an addition (see the header).
    for (ArchCoverage& arch : out.sass) arch.covering = true;
    for (ArchCoverage& arch : out.ptx) arch.covering = true;
  }
  return out;
}

void set_gpu_code_coverage_facts(FactSet& facts, std::string_view prefix, const FatbinScan& scan,
                                 const std::string& source) {
  GpuCodeCoverage coverage = gpu_code_coverage(scan);
  facts.set(FactName::unchecked(joined(prefix, "sass_covering")), names_where(coverage.sass, true), source);
  facts.set(FactName::unchecked(joined(prefix, "sass_partial")), names_where(coverage.sass, false), source);
  facts.set(FactName::unchecked(joined(prefix, "ptx_covering")), names_where(coverage.ptx, true), source);
  facts.set(FactName::unchecked(joined(prefix, "ptx_partial")), names_where(coverage.ptx, false), source);
  std::vector<std::string> counts;
  for (const auto* archs : {&coverage.sass, &coverage.ptx}) {
    for (const ArchCoverage& arch : *archs) {
      counts.push_back(arch.name + " " + std::to_string(arch.containers) + "/" + std::to_string(coverage.with_code));
    }
  }
  facts.set(FactName::unchecked(joined(prefix, "fatbin_arch_counts")), counts, source);
  facts.set(FactName::unchecked(joined(prefix, "fatbins_with_code")), static_cast<std::int64_t>(coverage.with_code), source);
}

std::vector<std::string> gpu_code_coverage_fact_names(std::string_view prefix) {
  std::vector<std::string> out;
  for (std::string_view suffix : k_suffixes) out.push_back(joined(prefix, suffix));
  return out;
}

}  // namespace gd
