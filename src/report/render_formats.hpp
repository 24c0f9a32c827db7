#pragma once
// Every --format, one row each (bloaty's OutputFormat, ninja's kTools[]): its word, its render
// function, where --redact applies to it and whether it carries the capture. The pipeline prints
// through the row and knows no format by name; a new format is its render_*.cpp and one row here.

#include <span>
#include <string>
#include <string_view>

#include "core/finding.hpp"
#include "report/redact.hpp"
#include "report/render_text.hpp"
#include "report/report.hpp"

namespace gd {

/// Where --redact applies to a format's output.
enum class RedactStage {
  /// On the finished text (Redactor::text): text, npd, prometheus.
  after_render,
  /// On the report, before rendering (redact_report): markdown, whose renderer escapes the
  /// placeholders and keeps its size limit.
  before_render,
  /// Inside the render function, on its own structure (the JSON tree), given
  /// RenderSettings::redactor.
  inside_render,
};

/// What a render function may need besides the report; the caller fills every field.
struct RenderSettings {
  TextStyle style;                       ///< text: colour, Unicode marks, -v
  Severity fail_on = Severity::error;    ///< npd: the lowest severity that is a problem
  double finished_unix_s = 0;            ///< prometheus: when the run ended (the renderer reads no clock)
  const Redactor* redactor = nullptr;    ///< under --redact, for RedactStage::inside_render only
};

struct RenderFormat {
  std::string_view name;  ///< --format's word
  std::string (*render)(const Report& report, const RenderSettings& settings);
  RedactStage redact_stage;
  bool needs_capture;  ///< the report carries what was read (unless --no-capture)
};

/// Every format, in --format's order (text first: the default).
std::span<const RenderFormat> render_formats();

/// The row of `name`; nullptr for a word that is no format.
const RenderFormat* find_render_format(std::string_view name);

/// Renders `report` in `format`, redacted at the format's stage when `redactor` is given.
std::string render_in_format(const RenderFormat& format, const Report& report, RenderSettings settings,
                             const Redactor* redactor);

}  // namespace gd
