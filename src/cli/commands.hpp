#pragma once
// One function per subcommand (CLI11 subcom_in_files pattern); each returns the exit code.

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/options.hpp"
#include "rules/rule.hpp"

namespace gd {

/// The built-in rules plus every --rules path; an error names the file and line.
Result<std::vector<Rule>> load_all_rules(const EmbeddedData& data, const Options& options);

int run_check(const Options& options, const EmbeddedData& data, const std::vector<Rule>& rules);
int run_replay(const std::string& file, const Options& options, const std::vector<Rule>& rules);
int run_rules_list(const std::vector<Rule>& rules);
int run_explain(const std::string& id, const std::vector<Rule>& rules);
int run_fleet(const std::vector<std::string>& paths, const Options& options);
int run_diff(const std::string& a, const std::string& b, const Options& options, const std::vector<Rule>& rules);

}  // namespace gd
