// phase_times [RUNS]: where the host part of a run goes, phase by phase (median of RUNS, default
// 11): loading the embedded rules, each probe against the live host (without the CUDA helper),
// evaluating the rules, building the report. `bench/run.sh` gives the whole-run figure; this
// says which part to make faster.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "probes/probe.hpp"
#include "report/report.hpp"
#include "rules/embedded_rules.hpp"
#include "rules/evaluator.hpp"
#include "sys/real_host.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
  std::map<std::string, std::vector<double>> times;
  std::vector<std::string> order;
  auto record = [&](const std::string& phase, double ms) {
    if (!times.count(phase)) order.push_back(phase);
    times[phase].push_back(ms);
  };
  for (int run = 0; run < runs; ++run) {
    auto start = Clock::now();
    gd::RuleLoadResult rules = gd::load_embedded_rules();
    record("load embedded rules", ms_since(start));
    gd::RealHost host("/", {});
    gd::ProbeOptions options;
    options.run_cuda_helper = false;
    gd::FactSet facts;
    for (const gd::ProbeEntry& probe : gd::all_probes()) {
      auto probe_start = Clock::now();
      probe.run(host, options, facts);
      record("probe " + std::string(probe.name), ms_since(probe_start));
    }
    auto eval_start = Clock::now();
    gd::Evaluation evaluation = gd::evaluate(rules.rules, facts);
    record("evaluate rules", ms_since(eval_start));
    auto report_start = Clock::now();
    auto lines = gd::build_area_lines(facts, evaluation.findings);
    record("overview lines", ms_since(report_start));
    record("total (no process start)", ms_since(start));
  }
  std::printf("%-36s %10s\n", "phase", "median ms");
  for (const std::string& phase : order) std::printf("%-36s %10.2f\n", phase.c_str(), median(times[phase]));
  return 0;
}
