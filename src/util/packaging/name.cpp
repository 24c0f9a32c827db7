#include "util/packaging/name.hpp"

#include "util/packaging/text_chars.hpp"

namespace gd {

std::string normalize_name(std::string_view name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run) {
        out += '-';
      }
      in_run = true;
    } else {
      out += packaging_text::ascii_lower(c);
      in_run = false;
    }
  }
  return out;
}

}  // namespace gd
