#include "report/render_markdown.hpp"
#include "report/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/markdown_budget.hpp"
#include "report/markdown_text.hpp"

namespace gd {
namespace {

using md::Cut;
using md::Part;

// Caps on single values: one value (a placeholder that holds a whole file, a fact listing
// thousands of paths) must not crowd out the rest of the report. What is cut ends in "…"; the
// --json report has it whole.
constexpr std::size_t k_title_max = 300;
constexpr std::size_t k_text_max = 4000;        // message, why, one fix step
constexpr std::size_t k_short_text_max = 600;   // the same, once detail is being left out
constexpr std::size_t k_value_max = 500;        // an evidence value
constexpr std::size_t k_fact_value_max = 2000;  // a value in the facts listing
constexpr std::size_t k_source_max = 300;
constexpr std::size_t k_area_summary_max = 1000;
constexpr std::size_t k_area_brief_max = 160;
constexpr std::size_t k_area_details_max = 64;  // lines under one area (one per GPU)
constexpr std::size_t k_id_list_max = 2000;     // --scope node's list of left-out ids
constexpr std::size_t k_note_items = 30;      // items of one kind in the list of what was left out
constexpr std::size_t k_note_item_max = 60;

/// Host text made safe to measure and cut: valid UTF-8, capped.
std::string value(std::string_view text, std::size_t max) { return md::shorten(md::clean(text), max); }

std::string inline_value(std::string_view text, std::size_t max) { return md::inline_text(value(text, max)); }

std::string_view area_mark(AreaStatus status) {
  switch (status) {
    case AreaStatus::ok: return "✅ ok";
    case AreaStatus::info: return "ℹ️ info";
    case AreaStatus::warning: return "⚠️ warning";
    case AreaStatus::error: return "❌ error";
    case AreaStatus::unknown: return "❔ unknown";
    case AreaStatus::skipped: return "➖ skipped";
  }
  return "❔";
}

std::string_view severity_mark(Severity severity) {
  switch (severity) {
    case Severity::error: return "❌ error";
    case Severity::warning: return "⚠️ warning";
    case Severity::info: return "ℹ️ info";
  }
  return "❔";
}

std::string plural(std::size_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

/// A heading's text: '#' escaped too, which would otherwise close an ATX heading at its end
/// (inline_text writes '#' only inside character references such as &#124;, which stay).
std::string heading_text(std::string_view text) {
  std::string inline_form = md::inline_text(value(text, k_title_max));
  std::string out;
  for (std::size_t i = 0; i < inline_form.size(); ++i) {
    bool in_reference = i > 0 && inline_form[i - 1] == '&';
    out += inline_form[i] == '#' && !in_reference ? std::string("\\#") : std::string(1, inline_form[i]);
  }
  return out;
}

std::string head(const Report& report) {
  int errors = report.count(Severity::error);
  int warnings = report.count(Severity::warning);
  int infos = report.count(Severity::info);
  std::string verdict;
  if (errors > 0) {
    verdict = fmt::format("❌ gpudoctor: {}, {}", plural(errors, "error"), plural(warnings, "warning"));
  } else if (warnings > 0) {
    verdict = fmt::format("⚠️ gpudoctor: {}", plural(warnings, "warning"));
  } else if (verdict_of(report).kind == Verdict::Kind::incomplete) {
    // Never "no problems found" when something was not checked or a layer is flagged (issue 18).
    verdict = "❔ gpudoctor: no problem confirmed";
  } else {
    verdict = fmt::format("✅ gpudoctor: no {}problems found", report.run.scope == RunScope::node ? "node " : "");
  }
  if (infos > 0) verdict += fmt::format(" ({})", plural(infos, "note"));
  std::string out = "## " + verdict + "\n\n";
  if (errors == 0 && warnings == 0 && verdict_of(report).kind == Verdict::Kind::incomplete) {
    out += inline_value(verdict_of(report).text, 400) + "\n\n";
  }
  auto first = std::find_if(report.findings.begin(), report.findings.end(),
                            [](const Finding& f) { return f.severity != Severity::info; });
  if (first != report.findings.end()) {
    out += fmt::format("**Most likely cause:** {} ({})\n\n", inline_value(first->title, k_title_max),
                       md::code_span(value(first->id, k_title_max)));
  }
  std::string where = report.run.mode == RunMode::live        ? "this host"
                      : report.run.mode == RunMode::preflight ? "pre-flight of the image " + md::code_span(value(report.run.source, k_source_max))
                      : report.run.mode == RunMode::root      ? "the folder " + md::code_span(value(report.run.source, k_source_max))
                                                              : "a replay of " + md::code_span(value(report.run.source, k_source_max));
  out += fmt::format("gpudoctor {} · {}", inline_value(report.run.gpudoctor_version, 40), where);
  if (!report.run.host.empty()) out += " · host " + md::code_span(value(report.run.host, 255));
  if (report.run.uid == 0) out += " · as root";
  if (report.run.uid > 0) out += fmt::format(" · as uid {}", report.run.uid);
  if (report.run.scope == RunScope::node) out += " · `--scope node`";
  return out + "\n\n";
}

std::string overview(const Report& report, bool with_details) {
  if (report.areas.empty()) return "";
  std::string out = "### Overview\n\n| | Layer | Summary |\n|:--|:--|:--|\n";
  for (const AreaLine& area : report.areas) {
    std::string summary = inline_value(area.summary, with_details ? k_area_summary_max : k_area_brief_max);
    if (with_details) {
      std::size_t shown = std::min(area.details.size(), k_area_details_max);
      for (std::size_t i = 0; i < shown; ++i) summary += "<br>• " + inline_value(area.details[i], k_source_max);
      if (shown < area.details.size()) summary += fmt::format("<br>• … {} more", area.details.size() - shown);
    }
    out += fmt::format("| {} | {} | {} |\n", area_mark(area.status), inline_value(area.title, k_title_max), summary);
  }
  return out + "\n";
}

std::string evidence_lines(const std::vector<Evidence>& evidence, std::string_view indent) {
  std::string out;
  for (const Evidence& e : evidence) {
    out += fmt::format("{}{} = {}", indent, md::one_line(value(e.fact, k_title_max)),
                       md::one_line(value(e.value, k_value_max)));
    if (!e.source.empty()) out += "  (" + md::one_line(value(e.source, k_source_max)) + ")";
    out += "\n";
  }
  return out;
}

enum class FindingForm { whole, without_evidence, short_text, title_only };

std::string finding(const Finding& f, FindingForm form) {
  std::string out = fmt::format("#### {}: {}\n\n", severity_mark(f.severity), heading_text(f.title));
  out += fmt::format("{} · area {} · {} · action {}\n\n", md::code_span(value(f.id, k_title_max)),
                     md::code_span(value(f.area, k_title_max)),
                     f.scope == Scope::node ? "the node's problem" : "this environment's problem, not the node's",
                     md::code_span(to_string(f.action)));
  if (form == FindingForm::title_only) return out;
  std::size_t text_max = form == FindingForm::short_text ? k_short_text_max : k_text_max;
  if (!f.message.empty()) out += inline_value(f.message, text_max) + "\n\n";
  if (!f.why.empty() && form != FindingForm::short_text) out += "**Why:** " + inline_value(f.why, text_max) + "\n\n";
  if (!f.fix.empty()) {
    out += f.fix.size() == 1 ? "**Fix:**\n\n" : fmt::format("**Fix** ({} steps):\n\n", f.fix.size());
    for (std::size_t i = 0; i < f.fix.size(); ++i) {
      if (f.fix.size() > 1) out += fmt::format("**Step {}**\n\n", i + 1);
      out += md::code_block(value(f.fix[i], text_max)) + "\n";
    }
  }
  if (!f.consequences.empty()) {
    std::vector<std::string> ids;
    for (const std::string& id : f.consequences) ids.push_back(md::code_span(value(id, k_title_max)));
    out += fmt::format("**Also explains:** {}\n\n", fmt::join(ids, ", "));
  }
  if (form != FindingForm::whole) return out;
  if (!f.evidence.empty()) out += "**Evidence:**\n\n" + md::code_block(evidence_lines(f.evidence, "")) + "\n";
  if (!f.references.empty()) {
    std::vector<std::string> refs;
    for (const std::string& ref : f.references) refs.push_back(md::link_or_code(value(ref, k_source_max)));
    out += fmt::format("**See:** {}\n\n", fmt::join(refs, ", "));
  }
  return out;
}

/// A folded block: <summary> text is raw HTML, so escaped as such; the content is Markdown
/// (here: code blocks), which GitHub reads because blank lines separate it from the tags.
std::string folded(std::string_view summary, std::string_view content) {
  return fmt::format("<details><summary>{}</summary>\n\n{}\n</details>\n\n", summary, content);
}

std::string inconclusive(const Report& report, bool with_facts) {
  if (report.inconclusive.empty()) return "";
  std::string lines;
  for (const Inconclusive& item : report.inconclusive) {
    lines += md::one_line(value(item.id, k_title_max)) + "  " + md::one_line(value(item.title, k_title_max)) + "\n";
    if (with_facts) lines += evidence_lines(item.unknown_facts, "    ");
  }
  std::string summary = fmt::format("{} that could not decide{}", plural(report.inconclusive.size(), "check"),
                                    with_facts ? " (and the unknown facts each needs)" : "");
  return folded(summary, md::code_block(lines));
}

std::string fact_line(const std::string& name, const Fact& fact) {
  std::string out = name + " = " + md::one_line(value(fact_text(fact), k_fact_value_max));
  if (fact.state == FactState::absent && !fact.reason.empty()) out += " (" + md::one_line(value(fact.reason, k_source_max)) + ")";
  if (!fact.source.empty()) out += "  (" + md::one_line(value(fact.source, k_source_max)) + ")";
  return out + "\n";
}

std::string_view group_of(std::string_view fact_name) { return fact_name.substr(0, fact_name.find('.')); }

std::string footer() {
  return "<sub>Made by <code>gpudoctor --format markdown</code>. The whole report, with every value uncut: "
         "<code>gpudoctor --json</code>.</sub>\n";
}

std::string note(std::span<const Cut> cuts) {
  if (cuts.empty()) return "";
  return "> **Shortened to fit one GitHub comment** (65,536 characters). Left out: " +
         md::left_out_list(cuts, k_note_items) +
         ". `gpudoctor --json --no-capture` has all of it (attach it as a file; `--redact` for a public tracker).\n\n";
}

}  // namespace

std::string render_markdown(const Report& report, std::size_t max_bytes) {
  std::vector<Part> parts;
  std::vector<Cut> plan;
  auto add = [&](std::vector<std::string> forms) {
    parts.push_back({std::move(forms), 0});
    return parts.size() - 1;
  };

  add({head(report)});
  std::size_t overview_part = add({overview(report, true), overview(report, false), ""});
  std::size_t findings_heading = add({report.findings.empty() ? "" : "### Findings\n\n", ""});
  std::vector<std::size_t> finding_parts;
  for (const Finding& f : report.findings) {
    finding_parts.push_back(add({finding(f, FindingForm::whole), finding(f, FindingForm::without_evidence),
                                 finding(f, FindingForm::short_text), finding(f, FindingForm::title_only), ""}));
  }
  std::vector<std::string> left_out_ids;
  for (const std::string& id : report.left_out) left_out_ids.push_back(md::code_span(value(id, k_title_max)));
  add({report.left_out.empty() ? ""
                               : "**Left out by `--scope node`** (this environment's problems, not the node's): " +
                                     md::shorten(fmt::format("{}", fmt::join(left_out_ids, ", ")), k_id_list_max) +
                                     "\n\n"});
  std::size_t detail_heading = add({"### Detail\n\n", ""});
  std::size_t inconclusive_part = add({inconclusive(report, true), inconclusive(report, false), ""});

  // Facts in one folded block per layer prefix (kmod.*, nvml.*), so that a large layer can be
  // left out alone.
  std::map<std::string, std::vector<const Fact*>, std::less<>> groups;
  for (const auto& [name, fact] : report.facts.all()) groups[std::string(group_of(name))].push_back(&fact);
  std::set<std::string, std::less<>> cited;  // groups a finding's evidence names
  for (const Finding& f : report.findings) {
    for (const Evidence& e : f.evidence) cited.insert(std::string(group_of(e.fact)));
  }
  struct Group {
    std::size_t part;
    std::string name;
    std::size_t count;
    bool cited;
  };
  std::vector<Group> fact_groups;
  for (const auto& [name, facts] : groups) {
    std::string lines;
    for (const Fact* fact : facts) lines += fact_line(fact->name, *fact);
    std::string summary = fmt::format("Facts: <code>{}.*</code> ({})", md::html_text(name), facts.size());
    fact_groups.push_back({add({folded(summary, md::code_block(lines)), ""}), name, facts.size(), cited.contains(name)});
  }
  add({footer()});

  // The plan, least important first: facts no finding cites, then the cited ones (largest first
  // within each, so that fewer groups go), the unknown facts behind the undecided checks, the
  // evidence of each finding from the last (least likely) to the first, the list of undecided
  // checks, the overview's per-GPU lines, then the findings' why, their text, and last the
  // findings themselves, again from the last; the first finding's title goes last of all.
  // A cut that would change nothing (a finding without evidence) is left out of the plan, so
  // that the note never names what was not there.
  std::vector<std::size_t> planned(parts.size(), 0);
  auto cut = [&](std::size_t part, std::size_t form, std::string kind, std::string item) {
    if (parts[part].forms[form] != parts[part].forms[planned[part]]) plan.push_back({part, form, std::move(kind), std::move(item)});
    planned[part] = form;
  };
  std::stable_sort(fact_groups.begin(), fact_groups.end(), [&](const Group& a, const Group& b) {
    if (a.cited != b.cited) return !a.cited;
    return parts[a.part].forms[0].size() > parts[b.part].forms[0].size();
  });
  for (const Group& g : fact_groups) cut(g.part, 1, "the facts of", fmt::format("`{}.*` ({})", g.name, g.count));
  cut(inconclusive_part, 1, "the unknown facts of the checks that could not decide", "");
  auto each_finding = [&](std::size_t form, std::string kind, bool keep_first) {
    for (std::size_t i = finding_parts.size(); i-- > (keep_first ? 1 : 0);) {
      cut(finding_parts[i], form, kind, md::code_span(value(report.findings[i].id, k_note_item_max)));
    }
  };
  each_finding(1, "the evidence and sources of", false);
  cut(inconclusive_part, 2, "the list of checks that could not decide", "");
  cut(overview_part, 1, "the overview's lines per GPU", "");
  each_finding(2, "the why (and the end of long messages and fix steps) of", false);
  each_finding(3, "the message and fix of", true);
  each_finding(4, "the findings", true);
  cut(overview_part, 2, "the overview table", "");
  if (!finding_parts.empty()) {
    cut(finding_parts[0], 3, "the message and fix of", md::code_span(value(report.findings[0].id, k_note_item_max)));
  }

  std::size_t made = md::fit(parts, plan, max_bytes, note);
  // Section headings go with the last part under them.
  auto all_empty = [&](auto begin, auto end) {
    return std::all_of(begin, end, [&](std::size_t p) { return parts[p].forms[parts[p].form].empty(); });
  };
  if (all_empty(finding_parts.begin(), finding_parts.end())) parts[findings_heading].form = 1;
  std::vector<std::size_t> detail_parts{inconclusive_part};
  for (const Group& g : fact_groups) detail_parts.push_back(g.part);
  if (all_empty(detail_parts.begin(), detail_parts.end())) parts[detail_heading].form = 1;

  std::string out = parts[0].forms[0] + note(std::span<const Cut>(plan).first(made));
  parts.erase(parts.begin());
  return out + md::join(parts);
}

}  // namespace gd
