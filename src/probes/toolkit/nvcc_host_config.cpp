#include "probes/toolkit/nvcc_host_config.hpp"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_error_within = 4;  // lines between the #if and its #error (one blank line in CUDA 13.0)

std::string_view skip_spaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  return text;
}

/// A preprocessor directive's name and the rest: "#  if x" -> ("if", "x"); ("", "") otherwise.
std::pair<std::string_view, std::string_view> directive(std::string_view line) {
  line = skip_spaces(line);
  if (!line.starts_with('#')) {
    return {};
  }
  line = skip_spaces(line.substr(1));
  std::size_t end = 0;
  while (end < line.size() && std::isalpha(static_cast<unsigned char>(line[end]))) {
    ++end;
  }
  return {line.substr(0, end), line.substr(end)};
}

/// The limit in "__GNUC__ > 15" or "__GNUC__ >= 16" (-> 15) in an #if condition.
std::optional<int> gnuc_upper_limit(std::string_view condition) {
  constexpr std::string_view macro = "__GNUC__";
  for (std::size_t at = condition.find(macro); at != std::string_view::npos; at = condition.find(macro, at + 1)) {
    std::string_view rest = skip_spaces(condition.substr(at + macro.size()));
    if (!rest.starts_with('>')) {
      continue;  // __GNUC__ == 5, __GNUC__ < 6, __GNUC_MINOR__: not an upper limit
    }
    bool or_equal = rest.starts_with(">=");
    rest = skip_spaces(rest.substr(or_equal ? 2 : 1));
    std::size_t digits = 0;
    while (digits < rest.size() && digits < 3 && std::isdigit(static_cast<unsigned char>(rest[digits]))) {
      ++digits;
    }
    if (digits == 0) {
      continue;
    }
    int limit = std::stoi(std::string(rest.substr(0, digits)));
    return or_equal ? limit - 1 : limit;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> parse_max_gcc_major(std::string_view host_config) {
  std::vector<std::string_view> lines = split_nonempty_lines(host_config);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto [name, condition] = directive(lines[i]);
    if (name != "if" && name != "elif") {
      continue;  // #endif /* __GNUC__ > 15 */ repeats the condition in a comment
    }
    std::optional<int> limit = gnuc_upper_limit(condition);
    if (!limit) {
      continue;
    }
    // Only a check that ends in nvcc's "unsupported GNU version" error is the compiler limit.
    for (std::size_t j = i + 1; j < lines.size() && j <= i + k_error_within; ++j) {
      auto [next, text] = directive(lines[j]);
      if (next == "error" && text.find("unsupported GNU version") != std::string_view::npos) {
        return limit;
      }
      if (!next.empty()) {
        break;
      }
    }
  }
  return std::nullopt;
}

}  // namespace gd
