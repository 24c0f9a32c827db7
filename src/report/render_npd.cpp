#include "report/render_npd.hpp"

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
  for (const Finding& f : report.findings) {
    if (f.severity == Severity::info || static_cast<int>(f.severity) < static_cast<int>(fail_on)) continue;
    std::string line = one_line(f.id + ": " + f.title);
    if (line.size() > k_npd_max_line) line = utf8_prefix(line, k_npd_max_line - 3) + "...";
    return line + "\n";
  }
  return report.run.scope == "node" ? "no node problems found\n" : "no problems found\n";
}

}  // namespace gd
