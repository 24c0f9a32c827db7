#include "util/text_split.hpp"

#include <cctype>

namespace gd {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && is_blank(line[pos])) {
      ++pos;
    }
    std::size_t end = pos;
    while (end < line.size() && !is_blank(line[end])) {
      ++end;
    }
    if (end > pos) {
      words.push_back(line.substr(pos, end - pos));
    }
    pos = end;
  }
  return words;
}

std::vector<std::string_view> split_fields(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    std::size_t next = text.find(separator, start);
    fields.push_back(text.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start));
    if (next == std::string_view::npos) return fields;
    start = next + 1;
  }
}

std::vector<std::string_view> split_nonempty(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t next = text.find(separator, pos);
    if (next == std::string_view::npos) {
      next = text.size();
    }
    if (next > pos) {
      parts.push_back(text.substr(pos, next - pos));
    }
    pos = next + 1;
  }
  return parts;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split_nonempty_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::string_view line : split_nonempty(text, '\n')) {
    if (line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!line.empty()) {
      lines.push_back(line);
    }
  }
  return lines;
}

std::string_view trim_whitespace(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace gd
