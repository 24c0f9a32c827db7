#include "probes/shared/mountinfo.hpp"

#include "util/text_split.hpp"

namespace gd {
namespace {

// proc(5): a space, tab, newline or backslash in a path is written as a three-digit octal escape.
std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      std::string_view digits = text.substr(i + 1, 3);
      if (digits.find_first_not_of("01234567") == std::string_view::npos) {
        out += static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  for (std::string_view line : split_nonempty_lines(text)) {
    std::vector<std::string_view> words = split_words(line);
    // id, parent, major:minor, root, mount point, options, optional fields..., "-", fstype, source, super options
    std::size_t separator = 6;
    while (separator < words.size() && words[separator] != "-") ++separator;
    if (words.size() < 6 || separator + 2 >= words.size()) {
      continue;
    }
    MountEntry entry;
    entry.root = unescape(words[3]);
    entry.mount_point = unescape(words[4]);
    entry.fstype = std::string(words[separator + 1]);
    entry.source = unescape(words[separator + 2]);
    if (separator + 3 < words.size()) {
      entry.super_options = std::string(words[separator + 3]);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace gd
