#include "util/packaging/requirement.hpp"

#include <utility>

#include "util/packaging/text_chars.hpp"

namespace gd {

using namespace packaging_text;

namespace {

/// A distribution or extra name: letters and digits, with "-", "_", "." inside (PEP 508).
std::optional<std::string> read_name(std::string_view s, std::size_t& i) {
  std::size_t start = i;
  while (i < s.size() && (is_alnum(s[i]) || is_separator(s[i]))) {
    ++i;
  }
  std::string_view name = s.substr(start, i - start);
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) {
    return std::nullopt;
  }
  return std::string(name);
}

void skip_spaces(std::string_view s, std::size_t& i) {
  while (i < s.size() && is_space(s[i])) {
    ++i;
  }
}

/// The specifier list of a requirement. Stricter than parse_specifiers, as packaging's grammar
/// is: no empty clause, except one trailing comma.
std::optional<std::vector<Specifier>> parse_requirement_specifiers(std::string_view text) {
  text = trim(text);
  if (text.ends_with(',') && text.size() > 1) {
    text.remove_suffix(1);
  }
  std::vector<Specifier> out;
  if (trim(text).empty()) {
    return out;
  }
  while (true) {
    std::size_t comma = text.find(',');
    auto spec = parse_specifier(text.substr(0, comma));
    if (!spec) {
      return std::nullopt;
    }
    out.push_back(std::move(*spec));
    if (comma == std::string_view::npos) {
      return out;
    }
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

std::optional<Requirement> parse_requirement(std::string_view text) {
  text = trim(text);
  if (text.empty() || text.size() > k_max_requirement_chars) {
    return std::nullopt;
  }
  Requirement req;
  std::size_t i = 0;
  auto name = read_name(text, i);
  if (!name) {
    return std::nullopt;
  }
  req.name = std::move(*name);
  skip_spaces(text, i);

  if (i < text.size() && text[i] == '[') {
    ++i;
    skip_spaces(text, i);
    if (i < text.size() && text[i] == ']') {
      ++i;
    } else {
      while (true) {
        skip_spaces(text, i);
        auto extra = read_name(text, i);
        skip_spaces(text, i);
        if (!extra || i >= text.size()) {
          return std::nullopt;
        }
        req.extras.push_back(std::move(*extra));
        if (text[i] == ',') {
          ++i;
          continue;
        }
        if (text[i] != ']') {
          return std::nullopt;
        }
        ++i;
        break;
      }
    }
    skip_spaces(text, i);
  }

  std::string_view rest = text.substr(i);
  std::string_view marker_text;
  bool has_marker = false;
  if (rest.starts_with('@')) {
    // A URL runs to the next space; a marker after it needs a space before the ";".
    std::size_t j = 1;
    skip_spaces(rest, j);
    std::size_t start = j;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\t') {
      ++j;
    }
    req.url = std::string(rest.substr(start, j - start));
    if (req.url.empty()) {
      return std::nullopt;
    }
    skip_spaces(rest, j);
    if (j < rest.size()) {
      if (rest[j] != ';') {
        return std::nullopt;
      }
      has_marker = true;
      marker_text = rest.substr(j + 1);
    }
  } else {
    std::string_view spec_text;
    std::size_t after = 0;
    if (rest.starts_with('(')) {
      std::size_t close = rest.find(')');
      if (close == std::string_view::npos) {
        return std::nullopt;
      }
      spec_text = rest.substr(1, close - 1);
      after = close + 1;
      skip_spaces(rest, after);
    } else {
      after = std::min(rest.find(';'), rest.size());
      spec_text = rest.substr(0, after);
    }
    if (trim(spec_text).starts_with(',')) {
      return std::nullopt;
    }
    auto specs = parse_requirement_specifiers(spec_text);
    if (!specs) {
      return std::nullopt;
    }
    req.specifiers = std::move(*specs);
    if (after < rest.size()) {
      if (rest[after] != ';') {
        return std::nullopt;
      }
      has_marker = true;
      marker_text = rest.substr(after + 1);
    }
  }
  if (has_marker) {
    auto marker = parse_marker(marker_text);
    if (!marker) {
      return std::nullopt;
    }
    req.marker = std::move(*marker);
  }
  return req;
}

}  // namespace gd
