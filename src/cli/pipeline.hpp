#pragma once
// The straight pipeline shared by `check` and `replay`: probes → facts → rules → report.

#include <span>
#include <string>

#include "cli/options.hpp"
#include "report/report.hpp"
#include "rules/rule.hpp"
#include "sys/host.hpp"

namespace gd {

/// Runs every probe against `host` (recording what it reads when asked), evaluates `rules`.
Report run_pipeline(Host& host, const Options& options, std::span<const Rule> rules, RunInfo run);

/// Exit code for a finished report under --fail-on.
int exit_code_for(const Report& report, Severity fail_on);

/// Prints the report on stdout in --format, and writes --textfile's metrics first; false (after
/// one error line) when the textfile could not be written: the caller exits 2.
bool print_report(const Report& report, const Options& options);

}  // namespace gd
