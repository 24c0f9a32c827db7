#pragma once
// The grammar of one JSON document, read straight into a handler (issue 27 item 2): the text is
// validated whole (one value, then only whitespace to its end; a UTF-8 byte order mark at its
// start is skipped as nlohmann does) and each value reaches the handler as it is read, with no
// tree built, no per-character call and no copy: keys and strings are views into the text (or
// into a scratch buffer when they had escapes), numbers their text. The tokens are
// fleet/json_lexer's. The handler bounds the nesting: its open() returns false to stop. Pure.
//
// It accepts exactly what nlohmann::json::accept accepts, but for one thing: nlohmann ends the
// text at a NUL byte outside a string (for C strings), which here is an error like any other byte
// after the document ("{}\0junk" is refused).
//
// A handler has:
//   bool open(bool array);                          // '{' or '['; false stops the reading
//   void close();                                   // '}' or ']'
//   void key(std::string_view name);                // valid until the next key
//   void string(std::string_view value);            // valid until the next string value
//   void number(std::string_view text, bool integral);  // integral: no fraction or exponent
//   void boolean(bool value);
//   void null();

#include <string>
#include <string_view>

#include "fleet/json_lexer.hpp"

namespace gd {

/// How reading a document ended.
enum class JsonScanEnd {
  complete,  ///< the text is one valid JSON document
  stopped,   ///< the handler's open() said stop
  invalid,   ///< the text is not JSON: see the error
};

/// With `brace_at_line_start`, it is set when an object opens at the start of a line (after a
/// '\n'): fleet/report_splitter cuts a stream there, so such a text is not one document to it.
template <class Handler>
JsonScanEnd scan_json(std::string_view text, Handler& handler, JsonScanError& error,
                      bool* brace_at_line_start = nullptr) {
  JsonLexer lex(text);
  std::string key_scratch;
  std::string value_scratch;
  std::string open;  // '{' or '[' per level, innermost last
  std::string_view token;
  bool integral = false;
  auto invalid = [&](std::string_view context) {
    lex.in_context(context);
    error = lex.error();
    return JsonScanEnd::invalid;
  };
  auto unexpected = [&](std::string_view context, std::string_view expected) {
    lex.unexpected(context, expected);
    error = lex.error();
    return JsonScanEnd::invalid;
  };
  if (!lex.skip_bom()) return invalid("value");

  enum class Next { value, key, after_value };
  Next next = Next::value;
  while (true) {
    switch (next) {
      case Next::value: {
        const int c = lex.next_token_byte();
        switch (c) {
          case '{':
            if (brace_at_line_start != nullptr && lex.position() > 0 && text[lex.position() - 1] == '\n') {
              *brace_at_line_start = true;
            }
            lex.skip_byte();
            if (!handler.open(false)) return JsonScanEnd::stopped;
            open.push_back('{');
            if (lex.next_token_byte() == '}') {
              lex.skip_byte();
              open.pop_back();
              handler.close();
              next = Next::after_value;
            } else {
              next = Next::key;
            }
            continue;
          case '[':
            lex.skip_byte();
            if (!handler.open(true)) return JsonScanEnd::stopped;
            open.push_back('[');
            if (lex.next_token_byte() == ']') {
              lex.skip_byte();
              open.pop_back();
              handler.close();
              next = Next::after_value;
            }
            continue;  // else the array's first value
          case '"':
            if (!lex.read_string(token, value_scratch)) return invalid("value");
            handler.string(token);
            break;
          case 't':
            if (!lex.read_literal("true")) return invalid("value");
            handler.boolean(true);
            break;
          case 'f':
            if (!lex.read_literal("false")) return invalid("value");
            handler.boolean(false);
            break;
          case 'n':
            if (!lex.read_literal("null")) return invalid("value");
            handler.null();
            break;
          default:
            if (c == '-' || (c >= '0' && c <= '9')) {
              if (!lex.read_number(token, integral)) return invalid("value");
              handler.number(token, integral);
              break;
            }
            return unexpected("value", "'[', '{', or a literal");
        }
        next = Next::after_value;
        continue;
      }
      case Next::key: {
        if (lex.next_token_byte() != '"') return unexpected("object key", "string literal");
        if (!lex.read_string(token, key_scratch)) return invalid("object key");
        handler.key(token);
        if (lex.next_token_byte() != ':') return unexpected("object separator", "':'");
        lex.skip_byte();
        next = Next::value;
        continue;
      }
      case Next::after_value: {
        const int c = lex.next_token_byte();
        if (open.empty()) {
          if (c != -1) return unexpected("value", "end of input");
          return JsonScanEnd::complete;
        }
        const bool in_object = open.back() == '{';
        if (c == ',') {
          lex.skip_byte();
          next = in_object ? Next::key : Next::value;
        } else if (c == (in_object ? '}' : ']')) {
          lex.skip_byte();
          open.pop_back();
          handler.close();
        } else {
          return in_object ? unexpected("object", "'}'") : unexpected("array", "']'");
        }
        continue;
      }
    }
  }
}

}  // namespace gd
