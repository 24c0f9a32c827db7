#pragma once
// Splitting text the way /proc, sysfs and config files need it. Views point into the input.

#include <string_view>
#include <vector>

namespace gd {

/// Words separated by runs of spaces and tabs ("nvidia_uvm 1830912 - - Live ...").
std::vector<std::string_view> split_words(std::string_view line);

/// Pieces between `separator`s, empty ones dropped ("/usr//lib/" → {"usr", "lib"}).
std::vector<std::string_view> split_nonempty(std::string_view text, char separator);

/// Every piece between `separator`s, empty ones kept, so that positions count ("root:x:0:0::/root:"
/// → 7 fields; "" → one empty field).
std::vector<std::string_view> split_fields(std::string_view text, char separator);

/// Lines without their "\n", empty lines kept and "\r" left in place; text after the last "\n" is a
/// line only when not empty ("a\n\nb\n" → {"a", "", "b"}; "" → none). For a walk over the lines
/// of a file; util/text_codec's split_lines_exact keeps that last piece too, for a round trip.
std::vector<std::string_view> split_lines(std::string_view text);

/// Lines without their "\n" (and a "\r" before it), empty lines dropped.
std::vector<std::string_view> split_nonempty_lines(std::string_view text);

/// `text` without leading and trailing whitespace (isspace: blanks, tabs, CR, LF, VT, FF).
std::string_view trim_whitespace(std::string_view text);

/// One or more ASCII digits and nothing else ("" is not a number: a PID, a sequence number).
bool all_digits(std::string_view text);

}  // namespace gd
