#pragma once
// Host strings on their way to a terminal. A file name, a folder name, a variable, a capture or
// libcuda's output can hold bytes a terminal obeys: escape sequences (colours, titles, cursor
// moves, clearing the screen), BEL, C1 controls (U+0080-U+009F; U+009B is CSI on its own),
// bidi overrides and isolates that reorder what is shown, and newlines that start a line of
// their own ("\n[ok] Everything is fine"). Such text is shown escaped, never written.

#include <string>
#include <string_view>

namespace gd {

/// `text` with nothing a terminal would obey: a control character (U+0000-U+001F, U+007F) as
/// `\n`, `\t`, `\r` or `\xHH`; a C1 control, a bidi control (U+061C, U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069) or a line or paragraph separator (U+2028, U+2029) as `U+HHHH`;
/// a byte that is not part of valid UTF-8 (RFC 3629) as `\xHH`. Everything else, other scripts
/// included, is kept as it is. A backslash is kept too: the escaped forms are for reading, and
/// commands in the text (`tr ':' '\n'`) stay as they are written.
std::string terminal_safe(std::string_view text);

}  // namespace gd
