#pragma once
// One function per subcommand (CLI11 subcom_in_files pattern): each subcommand's file registers
// it on the app (add_x_command, with its own positionals) and runs it (run_x, returning the exit
// code). `check` is the default (no subcommand), so its options, the probe options, live on the
// app itself; `fleet` and `diff` get their own options structs, built from the few options they
// read, and never see the probe options (the app refuses those for them).

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/options.hpp"
#include "report/run_info.hpp"
#include "rules/rule.hpp"

namespace gd {

/// The built-in rules plus every --rules path; an error names the file and line.
Result<std::vector<Rule>> load_all_rules(const EmbeddedData& data, const Options& options);

/// `gpudoctor [check]`: diagnose this host, or --root DIR.
CLI::App* add_check_command(CLI::App& app);
int run_check(const Options& options, const EmbeddedData& data, const std::vector<Rule>& rules);

/// `gpudoctor replay FILE`.
CLI::App* add_replay_command(CLI::App& app, std::string& file);
int run_replay(const std::string& file, const Options& options, const std::vector<Rule>& rules);

/// `gpudoctor rules` and `gpudoctor explain ID`.
CLI::App* add_rules_command(CLI::App& app);
CLI::App* add_explain_command(CLI::App& app, std::string& id);
int run_rules_list(const std::vector<Rule>& rules);
int run_explain(const std::string& id, const std::vector<Rule>& rules);

/// What `gpudoctor fleet PATH...` reads from the command line.
struct FleetOptions {
  std::vector<std::string> paths;
  std::string format = "text";  ///< text, json or markdown; the others are refused
  std::string reference;        ///< --reference FILE: the known-good facts, instead of the majority
  bool verbose = false;
  RunScope scope = RunScope::all;  ///< node: each report's root cause among the node's findings only
  std::string textfile;            ///< refused: a fleet view is no node's metrics
  unsigned jobs = 0;               ///< --jobs: worker threads; 0: default_fleet_jobs() (cli/fleet_reader)
};
CLI::App* add_fleet_command(CLI::App& app, FleetOptions& options);
int run_fleet(const FleetOptions& options);

/// What `gpudoctor diff A B` reads from the command line.
struct DiffOptions {
  std::string a, b;
  std::string format = "text";  ///< text, json or markdown; the others are refused
  std::string reference;        ///< --reference FILE: the known-good facts, instead of the majority
  bool verbose = false;         ///< also the volatile facts
  RunScope scope = RunScope::all;  ///< the scope a capture is replayed in
  std::string textfile;            ///< refused: a diff is no node's metrics
};
CLI::App* add_diff_command(CLI::App& app, DiffOptions& options);
int run_diff(const DiffOptions& options, const std::vector<Rule>& rules);

}  // namespace gd
