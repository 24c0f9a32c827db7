#pragma once
// JSON from a file the user names (a capture to replay, a report or capture to diff), parsed
// within bounds that no real document comes near, so that a hostile file costs megabytes and a
// second, never gigabytes: 200 MB of '[' nests 100 million arrays, 200 MB of {"a":0} makes 25
// million objects of about 175 bytes each in an nlohmann tree. The text is read in chunks and
// the tree is built as it is parsed (nlohmann's SAX events, checked, then handed to its own tree
// builder), so the text is never held whole and the tree never grows past the bounds: the parse
// stops at the first value past one.
//
// The largest real documents (tests/hosts, 2026-12): a capture of the H200 with its kernel log,
// 1.1 MB, 16,000 values, 7 levels deep, 0.8 MB of strings, its longest string 45 KB.

#include <cstddef>
#include <expected>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gd {

struct JsonBounds {
  std::size_t max_bytes = std::size_t{256} << 20;        ///< the whole text
  std::size_t max_depth = 64;                            ///< arrays and objects inside each other
  std::size_t max_items = 1'000'000;                     ///< values and object keys
  std::size_t max_string_bytes = std::size_t{64} << 20;  ///< all strings and keys together
  std::size_t max_one_string = std::size_t{32} << 20;    ///< one string (the lexer holds it whole)
  std::size_t max_one_literal = 4096;                    ///< one number, true, false or null
};

/// Reads the next bytes of the text into the buffer: how many (0 at its end), or why it failed.
using JsonChunkReader = std::function<std::expected<std::size_t, std::string>(std::span<char>)>;

/// The document read through `read`, or one line saying why there is none: "not valid JSON at
/// byte 1234 (last read: '...')" (the token cut short and escaped for a terminal: the file may
/// be anything), "nested more than 64 levels deep at byte 70: not read", "read failed: ...".
std::expected<nlohmann::json, std::string> parse_bounded_json(const JsonChunkReader& read, const JsonBounds& bounds = {});

/// The same for a text already in memory (the fuzz target, tests).
std::expected<nlohmann::json, std::string> parse_bounded_json(std::string_view text, const JsonBounds& bounds = {});

}  // namespace gd
