#pragma once
// --format markdown: the report for a bug tracker (GitHub-flavoured Markdown). A heading with the
// verdict, the overview as a table, each finding with its message, why, fix steps as code blocks
// and evidence, and the full detail (every fact, the checks that could not decide) folded in
// <details> blocks. It always fits one GitHub comment: when the whole report would not, detail
// is left out, least important first, and the report says what was left out and that --json has
// it.

#include <cstddef>
#include <string>

#include "report/report.hpp"

namespace gd {

/// GitHub's limit on an issue or comment body is 65,536 characters. The report is kept to this
/// many bytes (a byte count is never below the character count, in UTF-8 or UTF-16), leaving
/// room for a line of the user's own above it.
inline constexpr std::size_t k_markdown_max_bytes = 65'000;

/// The Markdown report, at most `max_bytes` bytes (the default: k_markdown_max_bytes; tests pass
/// smaller budgets). Pure: nothing but the report is read. Any budget of 16 KiB or more is met.
std::string render_markdown(const Report& report, std::size_t max_bytes = k_markdown_max_bytes);

}  // namespace gd
