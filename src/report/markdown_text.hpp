#pragma once
// Pieces of GitHub-flavoured Markdown that hold any text safely. A report's values come from the
// host (a file's contents, libcuda's output, a path with any byte in it): none of them may open
// a table cell, a code span, an HTML tag, a heading or a list where the renderer did not put one.
// Each function says which context it is for; the output is also read the same way by
// Python-Markdown (the test's parser), which lacks some of CommonMark's escapes: where the two
// differ, an HTML character reference (&#124;) is used, which both read as the character.

#include <cstddef>
#include <string>
#include <string_view>

namespace gd::md {

/// `text` as valid UTF-8: each byte that does not start or continue a valid sequence becomes
/// U+FFFD, NUL and the C0 controls other than newline and tab are dropped, CR LF and a lone CR
/// become LF (Markdown reads a lone CR as a line end).
std::string clean(std::string_view text);

/// At most `max` bytes of `text`, cut on a UTF-8 boundary, with "…" after a cut (so up to
/// max + 3 bytes in all).
std::string shorten(std::string_view text, std::size_t max);

/// One line: newlines and tabs shown as the two characters \n and \t.
std::string one_line(std::string_view text);

/// For a paragraph, a heading after its marks or a table cell: every character that Markdown,
/// GitHub's extensions (tables, strikethrough, math) or HTML would read as syntax is escaped, and
/// line breaks become <br> so the text stays on one source line (a line of its own could start a
/// heading, a list or a setext underline).
std::string inline_text(std::string_view text);

/// For the text of an HTML element in a raw HTML line (<summary>): <, > and & as references.
std::string html_text(std::string_view text);

/// `text` (made one line) as a code span, fenced by more backticks than any run inside it.
std::string code_span(std::string_view text);

/// `content` as a fenced code block, fenced by more backticks than any run inside it (at least
/// three), ending in a newline. Nothing inside it is read as Markdown or HTML.
std::string code_block(std::string_view content);

/// <https://...> for a URL without spaces or angle brackets (an autolink both parsers know);
/// anything else (a driver source path) as a code span.
std::string link_or_code(std::string_view reference);

}  // namespace gd::md
