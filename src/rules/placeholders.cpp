#include "rules/placeholders.hpp"

namespace gd {
namespace {

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A dotted name: a lower-case letter first, then [a-z0-9_] segments separated by single dots,
// at least two segments (so `{x}` in a shell snippet is never taken for a fact).
bool looks_like_fact_name(std::string_view name) {
  if (name.empty() || !is_lower(name.front()) || name.back() == '.') {
    return false;
  }
  bool dotted = false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '.') {
      if (name[i - 1] == '.') {
        return false;
      }
      dotted = true;
    } else if (!is_lower(c) && !is_digit(c) && c != '_') {
      return false;
    }
  }
  return dotted;
}

}  // namespace

std::vector<Placeholder> find_placeholders(std::string_view text) {
  std::vector<Placeholder> out;
  std::size_t pos = 0;
  while ((pos = text.find('{', pos)) != std::string_view::npos) {
    std::size_t close = text.find('}', pos + 1);
    if (close == std::string_view::npos) {
      break;
    }
    std::string_view name = text.substr(pos + 1, close - pos - 1);
    if (looks_like_fact_name(name)) {
      out.push_back(Placeholder{std::string(name), pos, close - pos + 1});
      pos = close + 1;
    } else {
      pos += 1;
    }
  }
  return out;
}

std::string placeholder_value(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(FactName::unchecked(name));
  return fact ? fact_text(*fact) : std::string(k_not_collected);
}

std::string fill_placeholders(std::string_view text, const FactSet& facts) {
  std::string out;
  std::size_t done = 0;
  for (const Placeholder& placeholder : find_placeholders(text)) {
    out.append(text.substr(done, placeholder.offset - done));
    out += placeholder_value(facts, placeholder.fact);
    done = placeholder.offset + placeholder.length;
  }
  out.append(text.substr(done));
  return out;
}

}  // namespace gd
