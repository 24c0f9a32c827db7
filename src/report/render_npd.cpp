#include "report/render_npd.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>
#include "core/fact_key.hpp"

namespace gd {
namespace {

// The longest prefix of `text` of at most `limit` bytes that does not end inside a UTF-8
// sequence (NPD cuts by bytes; a cut character would show as garbage in `kubectl describe`).
std::string utf8_prefix(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

// One line: a title never holds a newline, but a placeholder value might.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

}  // namespace

std::string render_npd(const Report& report, Severity fail_on) {
  const bool node = report.run.scope == RunScope::node;
  std::size_t unconfirmed = 0;
  for (const Finding& f : report.findings) {
    if (f.severity == Severity::info || static_cast<int>(f.severity) < static_cast<int>(fail_on)) continue;
    // A health check never fails a node on what only the files suggest (exit_code_for agrees).
    if (node && !f.confirmed) {
      ++unconfirmed;
      continue;
    }
    std::string line = one_line(f.id + ": " + f.title);
    if (line.size() > k_npd_max_line) line = utf8_prefix(line, k_npd_max_line - 3) + "...";
    return line + "\n";
  }
  if (!node) return "no problems found\n";
  // What the all-clear does not cover, after "; " (deploy/slurm/gpudoctor-healthcheck reads it so).
  std::vector<std::string> caveats;
  if (auto busy = report.facts.get_int("cuda.context.busy_count"_fact); busy && *busy > 0) {
    caveats.push_back(fmt::format("{} GPU(s) busy, not proven", *busy));
  }
  if (unconfirmed > 0) caveats.push_back(fmt::format("{} unconfirmed", unconfirmed));
  std::string line = "no node problems found";
  if (!caveats.empty()) line += fmt::format("; {}", fmt::join(caveats, "; "));
  if (line.size() > k_npd_max_line) line = utf8_prefix(line, k_npd_max_line);
  return line + "\n";
}

}  // namespace gd
