#include "report/render_formats.hpp"

#include <array>

#include <nlohmann/json.hpp>

#include "report/redact_report.hpp"
#include "report/render_json.hpp"
#include "report/render_markdown.hpp"
#include "report/render_npd.hpp"
#include "report/render_prometheus.hpp"

namespace gd {
namespace {

std::string text_format(const Report& report, const RenderSettings& settings) {
  return render_text(report, settings.style);
}

std::string json_format(const Report& report, const RenderSettings& settings) {
  nlohmann::json json = render_json(report);
  if (settings.redactor) {
    settings.redactor->json(json);
    // Also a name too short or too common to be replaced wherever it appears ("a", "localhost").
    if (!json["run"]["host"].get<std::string>().empty()) json["run"]["host"] = "<host>";
  }
  // Invalid UTF-8 from the host (a garbage file, libcuda's output) is replaced, never fatal.
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string npd_format(const Report& report, const RenderSettings& settings) {
  return render_npd(report, settings.fail_on);
}

std::string prometheus_format(const Report& report, const RenderSettings& settings) {
  return render_prometheus(report, settings.finished_unix_s);
}

std::string markdown_format(const Report& report, const RenderSettings&) { return render_markdown(report); }

constexpr std::array<RenderFormat, 5> k_formats{{
    {"text", text_format, RedactStage::after_render, false},
    {"json", json_format, RedactStage::inside_render, true},
    {"npd", npd_format, RedactStage::after_render, false},
    {"prometheus", prometheus_format, RedactStage::after_render, false},
    {"markdown", markdown_format, RedactStage::before_render, false},
}};

}  // namespace

std::span<const RenderFormat> render_formats() { return k_formats; }

const RenderFormat* find_render_format(std::string_view name) {
  for (const RenderFormat& format : k_formats) {
    if (format.name == name) return &format;
  }
  return nullptr;
}

std::string render_in_format(const RenderFormat& format, const Report& report, RenderSettings settings,
                             const Redactor* redactor) {
  settings.redactor = format.redact_stage == RedactStage::inside_render ? redactor : nullptr;
  if (redactor && format.redact_stage == RedactStage::before_render) {
    return format.render(redact_report(report, *redactor), settings);
  }
  std::string text = format.render(report, settings);
  if (redactor && format.redact_stage == RedactStage::after_render) text = redactor->text(text);
  return text;
}

}  // namespace gd
