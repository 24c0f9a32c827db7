#pragma once
// Text from reports is someone else's input: bounded before it is kept, made printable before it
// reaches a terminal, and node names sorted the way people number nodes (node2 before node10).

#include <cstddef>
#include <string>
#include <string_view>

namespace gd {

/// `out` = at most `limit` bytes of `text`, cut on a UTF-8 character boundary ("..." marks a cut).
void assign_bounded(std::string& out, std::string_view text, std::size_t limit);

/// `text` safe to print: terminal_safe (util/terminal_text.hpp) shows control characters, C1 and
/// bidi controls and invalid UTF-8 escaped ("\x1b", "\n", "U+202E").
std::string printable(std::string_view text);

/// At most `limit` bytes of printable(text), "..." at the end when cut.
std::string printable_cut(std::string_view text, std::size_t limit);

/// Natural order: runs of digits compare as numbers ("node2" < "node10"), the rest as bytes.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace gd
