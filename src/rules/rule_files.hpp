#pragma once
// Reads rule files for `--rules PATH` and for the rulec build tool: one .toml file, or every
// *.toml under a folder (recursively, sorted by path so rule order is stable). The only file
// I/O of the rule engine; problems are collected as errors, nothing throws.

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "rules/rule_loader.hpp"

namespace gd {

/// Larger rule files are refused (a rule is a few KiB; this guards against reading a device).
inline constexpr std::uintmax_t k_max_rule_file_size = 1024 * 1024;

struct RuleSourceList {
  std::vector<RuleSource> sources;
  std::vector<Error> errors;  ///< unreadable, oversized or non-regular paths; an empty folder
};

/// The rule sources at `path`: a folder (relative paths give the ids) or a single file (its path
/// must end with the id).
RuleSourceList read_rule_sources(const std::string& path);

/// read_rule_sources() then load_rules(); read errors come first.
RuleLoadResult load_rules_from_path(const std::string& path);

}  // namespace gd
