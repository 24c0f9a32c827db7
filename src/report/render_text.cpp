#include "report/render_text.hpp"
#include "report/verdict.hpp"
#include "util/terminal_text.hpp"

#include <fmt/format.h>

#include <algorithm>

// Every value in the report can come from the host (file and folder names, variables, a capture,
// libcuda's strings, and the rule texts with them filled in): each goes through terminal_safe on
// its way in, so that what it holds is shown escaped, never obeyed; only this renderer's own
// newlines, indentation and colours reach the terminal as they are.

namespace gd {
namespace {

std::string safe(std::string_view text) { return terminal_safe(text); }

struct Palette {
  bool on;
  std::string red() const { return on ? "\033[31m" : ""; }
  std::string yellow() const { return on ? "\033[33m" : ""; }
  std::string green() const { return on ? "\033[32m" : ""; }
  std::string blue() const { return on ? "\033[34m" : ""; }
  std::string bold() const { return on ? "\033[1m" : ""; }
  std::string dim() const { return on ? "\033[2m" : ""; }
  std::string reset() const { return on ? "\033[0m" : ""; }
};

std::string mark(AreaStatus status, const TextStyle& style, const Palette& p) {
  switch (status) {
    case AreaStatus::ok: return p.green() + (style.unicode ? "[✓]" : "[ok]") + p.reset();
    case AreaStatus::info: return p.blue() + (style.unicode ? "[i]" : "[i]") + p.reset();
    case AreaStatus::warning: return p.yellow() + "[!]" + p.reset();
    case AreaStatus::error: return p.red() + (style.unicode ? "[✗]" : "[X]") + p.reset();
    case AreaStatus::unknown: return p.yellow() + "[?]" + p.reset();
    case AreaStatus::skipped: return p.dim() + "[-]" + p.reset();
  }
  return "[?]";
}

/// `text` cut to at most `max` bytes with "…" when it was longer, never inside a UTF-8
/// sequence (values can hold paths, driver messages and library output in any script).
std::string shorten(const std::string& text, std::size_t max) {
  if (text.size() <= max) {
    return text;
  }
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return text.substr(0, end) + "…";
}

std::string severity_label(Severity severity, const Palette& p) {
  switch (severity) {
    case Severity::error: return p.red() + p.bold() + "error" + p.reset();
    case Severity::warning: return p.yellow() + p.bold() + "warning" + p.reset();
    case Severity::info: return p.blue() + "info" + p.reset();
  }
  return "?";
}

void render_finding(std::string& out, const Finding& f, const Palette& p) {
  out += fmt::format("{} [{}] {}{}{}\n", severity_label(f.severity, p), safe(f.id), p.bold(), safe(f.title), p.reset());
  out += fmt::format("    {}\n", safe(f.message));
  if (!f.confirmed) {
    out += fmt::format("    Not confirmed: {}.\n", safe(f.unconfirmed));
  }
  if (!f.why.empty()) {
    out += fmt::format("    Why: {}\n", safe(f.why));
  }
  if (!f.fix.empty()) {
    // Whose problem it is matters to whoever reads this on a cluster: a user's environment is
    // never a reason to take the node out of service.
    out += fmt::format("    Fix ({}; action: {}):\n",
                       f.scope == Scope::node ? "the node's problem" : "this environment's problem, not the node's",
                       to_string(f.action));
    for (std::size_t i = 0; i < f.fix.size(); ++i) {
      // One line each: no rule's text holds a newline or another control of its own
      // (test_render_text.cpp checks the rules), so one here came from a filled-in value.
      out += fmt::format("      {}. {}\n", i + 1, safe(f.fix[i]));
    }
  }
  if (!f.consequences.empty()) {
    out += fmt::format("    Also explains: {}\n", safe(fmt::format("{}", fmt::join(f.consequences, ", "))));
  }
  if (!f.evidence.empty()) {
    out += fmt::format("    {}Evidence:{}\n", p.dim(), p.reset());
    for (const auto& e : f.evidence) {
      std::string value = safe(shorten(e.value, 300));
      out += fmt::format("    {}  {} = {}{}{}\n", p.dim(), safe(e.fact), value,
                         e.source.empty() ? "" : "  (" + safe(e.source) + ")", p.reset());
    }
  }
  if (!f.references.empty()) {
    out += fmt::format("    {}See: {}{}\n", p.dim(), safe(fmt::format("{}", fmt::join(f.references, " · "))), p.reset());
  }
  out += "\n";
}

/// Up to six ids as they are; more as their prefixes with counts ("klog.* (8), xid.* (10)").
std::string id_summary(const std::vector<std::string>& ids) {
  if (ids.size() <= 6) {
    return fmt::format("{}", fmt::join(ids, ", "));
  }
  std::vector<std::pair<std::string, int>> prefixes;
  for (const auto& id : ids) {
    std::string prefix = id.substr(0, id.find('.')) + ".*";
    auto it = std::find_if(prefixes.begin(), prefixes.end(), [&](const auto& e) { return e.first == prefix; });
    if (it == prefixes.end()) {
      prefixes.push_back({prefix, 1});
    } else {
      ++it->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [prefix, count] : prefixes) {
    parts.push_back(fmt::format("{} ({})", prefix, count));
  }
  return fmt::format("{} checks: {}", ids.size(), fmt::join(parts, ", "));
}

}  // namespace

std::string render_text(const Report& report, const TextStyle& style) {
  Palette p{style.color};
  std::string out;
  std::string who = report.run.uid == 0 ? "as root" : report.run.uid > 0 ? fmt::format("as uid {}", report.run.uid) : "";
  std::string where = report.run.mode == RunMode::preflight ? "pre-flight of the image " + report.run.source
                      : report.run.mode == RunMode::live    ? "this host"
                      : report.run.mode == RunMode::root    ? "the folder " + report.run.source
                                                            : "the capture " + report.run.source;
  out += fmt::format("{}gpudoctor {}{} — {}{}\n\n", p.bold(), safe(report.run.gpudoctor_version), p.reset(), safe(where),
                     who.empty() ? "" : ", " + who);

  for (const auto& area : report.areas) {
    out += fmt::format("{} {}: {}\n", mark(area.status, style, p), safe(area.title), safe(area.summary));
    for (const auto& detail : area.details) {
      out += fmt::format("    • {}\n", safe(detail));
    }
  }
  out += "\n";

  for (const auto& finding : report.findings) {
    render_finding(out, finding, p);
  }

  if (style.verbose) {
    out += fmt::format("{}Facts{} ({}):\n", p.bold(), p.reset(), report.facts.all().size());
    for (const auto& [name, fact] : report.facts.all()) {
      std::string value = safe(shorten(fact_text(fact), 400));
      out += fmt::format("  {} = {}{}\n", safe(name), value, fact.source.empty() ? "" : "  (" + safe(fact.source) + ")");
    }
    out += "\n";
  }

  if (!report.inconclusive.empty()) {
    // Grouped by why the facts are unknown: one reason ("--no-cuda", "needs root") usually
    // explains many checks, and saying it once keeps the report readable.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    for (const auto& item : report.inconclusive) {
      std::vector<std::string> reasons;
      for (const auto& e : item.unknown_facts) {
        std::string reason = e.value;
        if (reason.starts_with("unknown (") && reason.ends_with(")")) {
          reason = reason.substr(9, reason.size() - 10);
        }
        if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
          reasons.push_back(reason);
        }
      }
      std::string key = fmt::format("{}", fmt::join(reasons, "; "));
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) {
        groups.push_back({key, {item.id}});
      } else {
        it->second.push_back(item.id);
      }
    }
    out += fmt::format("{}{} check{} could not decide (-v shows the facts):{}\n", p.dim(), report.inconclusive.size(),
                       report.inconclusive.size() == 1 ? "" : "s", p.reset());
    for (const auto& [reason, ids] : groups) {
      out += fmt::format("  {}? {}: {}{}\n", p.dim(), safe(reason), safe(id_summary(ids)), p.reset());
    }
    out += "\n";
  }

  if (!report.left_out.empty()) {
    out += fmt::format("{}Left out by --scope node (this environment's, not the node's): {}{}\n\n", p.dim(),
                       safe(fmt::format("{}", fmt::join(report.left_out, ", "))), p.reset());
  }
  Verdict verdict = verdict_of(report);
  std::string colour = verdict.kind == Verdict::Kind::healthy      ? p.green()
                       : verdict.kind == Verdict::Kind::incomplete ? p.yellow()
                       : report.count(Severity::error)             ? p.red()
                                                                   : p.yellow();
  out += fmt::format("{}{}{}\n", colour + p.bold(), safe(verdict.text), p.reset());
  return out;
}

}  // namespace gd
