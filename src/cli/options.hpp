#pragma once
// Everything the command line can say, parsed once (CLI11) and passed down.

#include <string>
#include <vector>

#include "core/finding.hpp"
#include "probes/probe.hpp"
#include "report/run_info.hpp"

namespace gd {

enum class ColorMode { automatic, always, never };

struct Options {
  /// --format: the name of a row of report/render_formats (--json is --format json).
  std::string format = "text";
  bool capture = true;  ///< --no-capture clears it
  bool verbose = false;
  bool redact = false;  ///< --redact: no host name, GPU UUIDs, user names or process names
  std::string root = "/";
  std::vector<std::string> rule_paths;
  Severity fail_on = Severity::error;
  ColorMode color = ColorMode::automatic;
  /// --scope; the pipeline sets probe.node_scope from it (the probes leave the environment's layers unread).
  RunScope scope = RunScope::all;
  ProbeOptions probe;
  /// --textfile PATH: the Prometheus metrics are also written there, atomically. Without --format
  /// or --json, stdout then stays empty (a cron line mails nothing); with one, it gets that format.
  std::string textfile;
  bool print_stdout = true;
  /// --image-config FILE: the image's OCI configuration, for a pre-flight check (its variables).
  std::string image_config;
};

}  // namespace gd
