#pragma once
// How the report was made: which run mode, which --scope, when, by whom. The mode and the scope
// are enums from the command line to the renderers; their words ("live", "node") are spelt only
// here, for the JSON report and for parsing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// What the report looked at: this host, a folder (--root), a capture (replay), or an image for
/// another host (pre-flight: --root IMAGE --target-gpu --target-driver).
enum class RunMode { live, root, replay, preflight };

/// --scope: everything (all), or only what belongs to the node (node, for health checks).
enum class RunScope { all, node };

/// "live", "root", "replay", "preflight": the JSON report's run.mode.
std::string_view to_string(RunMode mode);
/// "all", "node": the JSON report's run.scope and --scope's values.
std::string_view to_string(RunScope scope);
/// The mode a word names; nullopt for any other text.
std::optional<RunMode> parse_run_mode(std::string_view text);
/// The scope a word names; nullopt for any other text.
std::optional<RunScope> parse_run_scope(std::string_view text);

struct RunInfo {
  std::string gpudoctor_version;
  /// Set by every caller of the pipeline. A RunInfo made for a test renders as a replay, as one
  /// without a mode always did.
  RunMode mode = RunMode::replay;
  std::string source;  ///< "/" , the --root folder, or the replayed file
  std::int64_t duration_ms = 0;
  std::int64_t uid = -1;
  /// The node's name (uname nodename, the fact host.name; "<host>" under --redact, "" when
  /// unknown): fleet tools group reports by it.
  std::string host;
  RunScope scope = RunScope::all;
  /// When the run began, UTC, RFC 3339 with milliseconds ("2026-12-01T10:22:33.123Z"): of two
  /// reports of one node, `gpudoctor fleet` counts the newer. "" when unknown.
  std::string started;
};

}  // namespace gd
