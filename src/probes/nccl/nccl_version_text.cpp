#include "probes/nccl/nccl_version_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_release_length = 32;  // "2.27.3"; anything longer is not a release

/// The longest run of digits and dots at the start of `text`.
std::string_view leading_release(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && end < k_max_release_length && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.')) {
    ++end;
  }
  std::string_view run = text.substr(0, end);
  while (!run.empty() && run.back() == '.') run.remove_suffix(1);  // "2.27.3." at a sentence's end
  return run;
}

}  // namespace

std::optional<std::string> plain_release(std::string_view text) {
  if (text.empty() || text.size() > k_max_release_length) return std::nullopt;
  std::size_t parts = 0;
  for (std::string_view part : split_fields(text, '.')) {
    if (part.empty() || !all_digits(part) || part.size() > 6) return std::nullopt;
    ++parts;
  }
  if (parts < 2 || parts > 4) return std::nullopt;
  return std::string(text);
}

std::optional<std::string> metadata_version(std::string_view metadata) {
  for (std::string_view line : split_lines(metadata)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the body (the long description) starts after the first empty line
    constexpr std::string_view k_field = "Version:";
    if (!line.starts_with(k_field)) continue;
    return plain_release(trim_whitespace(line.substr(k_field.size())));
  }
  return std::nullopt;
}

std::optional<std::string> version_from_nccl_file_name(std::string_view file_name) {
  constexpr std::string_view k_stem = "libnccl.so.";
  if (!file_name.starts_with(k_stem)) return std::nullopt;
  std::string_view rest = file_name.substr(k_stem.size());
  if (rest.find('.') == std::string_view::npos) return std::nullopt;  // the soname link libnccl.so.2
  return plain_release(rest);
}

std::optional<std::string> version_from_marker(std::string_view bytes) {
  std::size_t at = 0;
  while ((at = bytes.find(k_nccl_version_marker, at)) != std::string_view::npos) {
    at += k_nccl_version_marker.size();
    if (auto release = plain_release(leading_release(bytes.substr(at)))) return release;
  }
  return std::nullopt;
}

std::optional<int> compare_releases(std::string_view a, std::string_view b) {
  if (!plain_release(a) || !plain_release(b)) return std::nullopt;
  auto left = split_fields(a, '.');
  auto right = split_fields(b, '.');
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    std::uint32_t x = 0;
    std::uint32_t y = 0;
    if (i < left.size()) std::from_chars(left[i].data(), left[i].data() + left[i].size(), x);
    if (i < right.size()) std::from_chars(right[i].data(), right[i].data() + right[i].size(), y);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace gd
