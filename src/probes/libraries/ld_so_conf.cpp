#include "probes/libraries/ld_so_conf.hpp"

#include "util/text_split.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>

namespace gd {
namespace {

constexpr std::size_t k_max_conf_bytes = 1 << 20;  // ld.so.conf files are a few lines
constexpr int k_max_depth = 8;                     // include nesting (ldconfig has no limit; loops do)
constexpr std::size_t k_max_files = 256;           // files read in all
constexpr std::size_t k_max_dirs = 1024;           // folders kept in all
constexpr std::size_t k_max_glob_results = 256;    // matches of one include pattern

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_space(char c) { return is_blank(c) || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool has_magic(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

/// Matches a '[...]' set at `pattern[p]` against `c`; advances `p` past it. False with p
/// unchanged when the set is not closed (then '[' is literal).
bool match_set(std::string_view pattern, std::size_t& p, char c, bool& matched) {
  std::size_t i = p + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) {
    ++i;
  }
  bool hit = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char lo = pattern[i];
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      hit = hit || (c >= lo && c <= pattern[i + 2]);
      i += 3;
    } else {
      hit = hit || c == lo;
      ++i;
    }
  }
  if (i >= pattern.size()) {
    return false;
  }
  p = i + 1;
  matched = hit != negate;
  return true;
}

bool glob_match_at(std::string_view pattern, std::size_t p, std::string_view name, std::size_t n) {
  while (p < pattern.size()) {
    char pc = pattern[p];
    if (pc == '*') {
      while (p < pattern.size() && pattern[p] == '*') {
        ++p;
      }
      if (p == pattern.size()) {
        return true;
      }
      for (std::size_t k = n; k <= name.size(); ++k) {
        if (glob_match_at(pattern, p, name, k)) {
          return true;
        }
      }
      return false;
    }
    if (n >= name.size()) {
      return false;
    }
    if (pc == '?') {
      ++p;
      ++n;
      continue;
    }
    if (pc == '[') {
      bool matched = false;
      std::size_t q = p;
      if (match_set(pattern, q, name[n], matched)) {
        if (!matched) {
          return false;
        }
        p = q;
        ++n;
        continue;
      }
    }
    if (pc == '\\' && p + 1 < pattern.size()) {
      ++p;
      pc = pattern[p];
    }
    if (pc != name[n]) {
      return false;
    }
    ++p;
    ++n;
  }
  return n == name.size();
}

std::string parent_dir(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return ".";
  }
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

/// glob(3) of an absolute pattern through `host`: each component with wildcards is matched
/// against list_dir of the folder above it. Sorted like glob's result.
std::vector<std::string> expand_glob(Host& host, std::string_view pattern) {
  std::vector<std::string> current = {""};
  for (std::string_view part : split_nonempty(pattern, '/')) {
    std::vector<std::string> next;
    for (const std::string& base : current) {
      if (!has_magic(part)) {
        next.push_back(base + "/" + std::string(part));
        continue;
      }
      auto names = host.list_dir(base.empty() ? "/" : base);
      if (!names) {
        continue;
      }
      for (const std::string& name : *names) {
        if (glob_match(part, name) && next.size() < k_max_glob_results) {
          next.push_back(base + "/" + name);
        }
      }
    }
    current = std::move(next);
  }
  std::vector<std::string> found;
  for (std::string& path : current) {
    if (!path.empty() && host.stat(path)) {
      found.push_back(std::move(path));
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void read_conf_file(Host& host, const std::string& path, int depth, bool top, LdSoConf& out) {
  if (depth > k_max_depth || out.files.size() >= k_max_files) {
    return;
  }
  auto text = host.read_file(path, k_max_conf_bytes);
  if (!text) {
    if (top && text.error().code == ENOENT) {
      out.top_missing = true;
    } else if (text.error().code != ENOENT && text.error().code != EISDIR) {  // ldconfig reads a folder as empty
      out.unreadable.push_back(path + ": " + text.error().describe());
    }
    return;
  }
  out.files.push_back(path);
  for (LdSoConfItem& item : parse_ld_so_conf(*text)) {
    if (!item.include) {
      if (out.dirs.size() < k_max_dirs && std::find(out.dirs.begin(), out.dirs.end(), item.text) == out.dirs.end()) {
        out.dirs.push_back(std::move(item.text));
      }
      continue;
    }
    // A relative pattern is relative to the including file's folder (parse_conf_include).
    std::string absolute = item.text.starts_with("/") ? item.text : parent_dir(path) + "/" + item.text;
    for (const std::string& file : expand_glob(host, absolute)) {
      read_conf_file(host, file, depth + 1, false, out);
    }
  }
}

}  // namespace

std::vector<LdSoConfItem> parse_ld_so_conf(std::string_view text) {
  std::vector<LdSoConfItem> out;
  for (std::string_view line : split_lines(text)) {
    // "the file format does not know any form of quoting": '#' always ends the line.
    line = line.substr(0, line.find('#'));
    while (!line.empty() && is_space(line.front())) {
      line.remove_prefix(1);
    }
    if (line.empty()) {
      continue;
    }
    if (line.size() > 7 && line.starts_with("include") && is_blank(line[7])) {
      std::string_view rest = line.substr(8);
      while (!rest.empty()) {
        std::size_t cut = rest.find_first_of(" \t");
        std::string_view word = rest.substr(0, cut);
        if (!word.empty()) {
          out.push_back({true, std::string(word)});
        }
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
      }
      continue;
    }
    if (line.size() > 5 && is_blank(line[5])) {
      std::string head(line.substr(0, 5));
      std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (head == "hwcap") {
        continue;  // "hwcap directive ignored" since glibc 2.37
      }
    }
    // add_dir_1: trailing whitespace and trailing slashes go; what is left is one folder.
    while (!line.empty() && (is_space(line.back()) || line.back() == '/')) {
      line.remove_suffix(1);
    }
    if (!line.empty()) {
      out.push_back({false, std::string(line)});
    }
  }
  return out;
}

bool glob_match(std::string_view pattern, std::string_view name) {
  if (name.starts_with(".") && !pattern.starts_with(".")) {
    return false;
  }
  return glob_match_at(pattern, 0, name, 0);
}

LdSoConf read_ld_so_conf(Host& host, std::string_view path) {
  LdSoConf out;
  read_conf_file(host, std::string(path), 0, true, out);
  return out;
}

}  // namespace gd
