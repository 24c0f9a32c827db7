#pragma once
// The command line: `gpudoctor [check]`, `replay FILE`, `rules`, `explain ID`.

#include <span>
#include <string>
#include <vector>

#include "rules/rule_loader.hpp"

namespace gd {

/// What the build embedded; injected so tests can run the CLI with other data.
struct EmbeddedData {
  std::span<const unsigned char> cuda_helper;
  std::vector<RuleSource> rules;
  /// The same rules as rulec compiled them (empty when they did not decode): used as they are
  /// when no --rules is given, so a run does not parse TOML.
  std::vector<Rule> compiled_rules;
  /// What --version prints (embedded/version.hpp: version, commit, target). It comes in from
  /// main() because the commit lives in the embedded library, which the core does not link.
  std::string version_line;
};

/// Parses argv, runs, prints; returns the process exit code (core/exit_code.hpp).
int run_cli(int argc, char** argv, const EmbeddedData& data);

}  // namespace gd
