#include "rules/toml_guard.hpp"

#include <cctype>

namespace gd {
namespace {

bool key_start(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '"' || c == '\'';
}

}  // namespace

TomlGuardProblem find_unparseable_toml(std::string_view text) {
  int line = 1;
  int depth = 0;            // open [ and { of values
  bool line_start = true;   // only blanks since the last newline, outside strings
  std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a UTF-8 byte order mark is allowed
  auto skip_string = [&](std::string_view quote, bool escapes) {
    i += quote.size();
    while (i < text.size()) {
      if (escapes && text[i] == '\\') {
        if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
        i += 2;
        continue;
      }
      if (text.substr(i, quote.size()) == quote) {
        i += quote.size();
        return;
      }
      if (text[i] == '\n') {
        if (quote.size() == 1) return;  // a one-line string ends at the newline (toml++ reports it)
        ++line;
      }
      ++i;
    }
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    // Outside strings and comments TOML is ASCII; toml++ 3.3 reaches an "unreachable" in its
    // Unicode whitespace table for some other characters there (fuzz: U+03D6, bytes CF 96).
    if (static_cast<unsigned char>(c) >= 0x80) {
      return {line, "a character outside ASCII outside a string or comment"};
    }
    bool at_line_start = line_start;
    line_start = false;
    if (c == '"' || c == '\'') {
      bool triple = text.substr(i, 3) == std::string(3, c);
      skip_string(triple ? text.substr(i, 3) : text.substr(i, 1), c == '"');
      continue;
    }
    if (c == '[' && depth == 0 && at_line_start) {
      // A table header: [name] or [[name]]; the name must start like a key.
      std::size_t j = i + 1;
      if (j < text.size() && text[j] == '[') ++j;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
      if (j >= text.size() || !key_start(text[j])) {
        return {line, "a table header must start with a key name"};
      }
      while (i < text.size() && text[i] != '\n') ++i;  // the rest of the header line
      continue;
    }
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    ++i;
  }
  return {};
}

}  // namespace gd
