#pragma once
// Text ⇄ JSON-safe forms for captures: UTF-8 text becomes an array of lines (reviewable in a
// diff), anything else becomes base64.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// The length of the well-formed UTF-8 sequence at `text[at]` (Unicode's table 3-7: 1 for ASCII,
/// 2 to 4 otherwise; no overlong form, no surrogate, nothing past U+10FFFF), 0 when it is
/// ill-formed or cut by the end of the text. The one UTF-8 check of the project.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);
bool is_valid_utf8(std::string_view text);
/// Splits on '\n'; joining the result with '\n' gives `text` back exactly (a final "" element
/// stands for a trailing newline).
std::vector<std::string> split_lines_exact(std::string_view text);
std::string join_lines(const std::vector<std::string>& lines);

std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace gd
