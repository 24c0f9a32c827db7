#include <fmt/format.h>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/stdout_sink.hpp"
#include "core/exit_code.hpp"
#include "rules/rule_files.hpp"

namespace gd {

Result<std::vector<Rule>> load_all_rules(const EmbeddedData& data, const Options& options) {
  if (options.rule_paths.empty() && !data.compiled_rules.empty()) {
    return data.compiled_rules;
  }
  std::vector<RuleSource> sources = data.rules;
  for (const std::string& path : options.rule_paths) {
    RuleSourceList extra = read_rule_sources(path);
    if (!extra.errors.empty()) {
      return std::unexpected(extra.errors.front());
    }
    for (auto& source : extra.sources) {
      sources.push_back(std::move(source));
    }
  }
  RuleLoadResult loaded = load_rules(sources);
  if (!loaded.ok()) {
    Error first = loaded.errors.front();
    if (loaded.errors.size() > 1) {
      first.message += fmt::format(" (and {} more problem{})", loaded.errors.size() - 1, loaded.errors.size() == 2 ? "" : "s");
    }
    return std::unexpected(first);
  }
  return std::move(loaded.rules);
}

CLI::App* add_rules_command(CLI::App& app) { return app.add_subcommand("rules", "list the rules"); }

CLI::App* add_explain_command(CLI::App& app, std::string& id) {
  CLI::App* explain = app.add_subcommand("explain", "print one rule in full");
  explain->add_option("ID", id, "rule id, e.g. cuda.stub-libcuda")->required();
  return explain;
}

int run_rules_list(const std::vector<Rule>& rules) {
  std::string out;
  for (const Rule& rule : rules) {
    out += fmt::format("{:<8} {:<45} {}\n", to_string(rule.severity), rule.id, rule.title);
  }
  out += fmt::format("{} rules\n", rules.size());
  write_stdout(out, "the rule list");
  return static_cast<int>(ExitCode::healthy);
}

int run_explain(const std::string& id, const std::vector<Rule>& rules) {
  const Rule* found = nullptr;
  for (const Rule& rule : rules) {
    if (rule.id == id) {
      found = &rule;
    }
  }
  if (!found) {
    // Suggest the closest id (ninja SpellcheckString).
    std::string best;
    std::size_t best_score = 0;
    for (const Rule& rule : rules) {
      std::size_t common = 0;
      while (common < id.size() && common < rule.id.size() && id[common] == rule.id[common]) ++common;
      bool contains = rule.id.find(id) != std::string::npos;
      std::size_t score = contains ? 1000 + id.size() : common;
      if (score > best_score) {
        best_score = score;
        best = rule.id;
      }
    }
    return usage_error("unknown rule '" + id + "'" + (best_score >= 3 ? fmt::format(", did you mean '{}'?", best) : ""));
  }
  const Rule& r = *found;
  std::string out = fmt::format("{} ({}, area {})\n{}\n\n", r.id, to_string(r.severity), r.area, r.title);
  out += fmt::format("Seen:  {}\n", r.message);
  out += fmt::format("Why:   {}\n", r.why);
  out += "Fix:\n";
  for (std::size_t i = 0; i < r.fix.size(); ++i) {
    out += fmt::format("  {}. {}\n", i + 1, r.fix[i]);
  }
  out += fmt::format("Facts: {}\n", fmt::join(condition_facts(r.when), ", "));
  if (!r.superseded_by.empty()) {
    std::vector<std::string> ids;
    for (const auto& ref : r.superseded_by) ids.push_back(ref.id);
    out += fmt::format("Superseded by: {}\n", fmt::join(ids, ", "));
  }
  out += "References:\n";
  for (const auto& ref : r.references) {
    out += fmt::format("  {}\n", ref);
  }
  out += fmt::format("Defined in: {}\n", r.file);
  write_stdout(out, "the rule");
  return static_cast<int>(ExitCode::healthy);
}

}  // namespace gd
