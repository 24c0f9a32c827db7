#pragma once
// Rule files -> validated rules (Falco pipeline: read -> validate -> compile). Works on text
// only; rule_files.hpp reads files for `--rules PATH`, embedded_rules.hpp supplies the built-in
// set. Every problem is collected as `Error{message, file, line}`; nothing throws.
//
// A rule file (one rule per file, path == id):
//
//   spec = "gpudoctor-rule/1"
//   id = "cuda.stub-libcuda"             # rules/cuda/stub-libcuda.toml
//   severity = "error"                   # error | warning | info
//   area = "cuda"
//   title = "..."
//   message = "... {cuda.libcuda.path} ..."   # placeholders name catalogued facts
//   why = "..."
//   fix = ["...", "..."]
//   references = ["https://..."]         # at least one
//   tags = ["experimental"]              # optional
//   superseded_by = ["cuda.other"]       # optional: dropped when any of these fires
//   evidence = ["cuda.helper.stderr"]    # optional: extra facts to show
//   [when]                               # exactly one of all/any/not, or a leaf
//   any = [ { fact = "cuda.init.result", equals = 34 }, { not = { fact = "x.y", present = true } } ]

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "rules/rule.hpp"

namespace gd {

/// One rule file's text and where it came from.
struct RuleSource {
  std::string path;           ///< shown in diagnostics ("rules/cuda/stub-libcuda.toml")
  std::string relative_path;  ///< under the rules root ("cuda/stub-libcuda.toml"); the id must
                              ///< equal it. Empty: a lone file, whose path must end with the id.
  std::string text;
};

struct RuleLoadResult {
  std::vector<Rule> rules;    ///< the rules that loaded, in source order
  std::vector<Error> errors;  ///< every problem found, in source order
  bool ok() const { return errors.empty(); }
};

/// The id a path under the rules root implies: "cuda/stub-libcuda.toml" -> "cuda.stub-libcuda".
std::string rule_id_for_path(std::string_view relative_path);

/// Parse and validate one rule file; problems are appended to `errors`.
std::optional<Rule> load_rule(const RuleSource& source, std::vector<Error>& errors);

/// Load every source, then check the set as a whole: duplicate ids, `superseded_by` naming a
/// rule that is not in the set, and supersession cycles.
RuleLoadResult load_rules(std::span<const RuleSource> sources);

}  // namespace gd
