#include "probes/limits/process_limits.hpp"

#include <charconv>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::string_view k_memlock_name = "Max locked memory";

/// A value column: "unlimited" is nullopt inside the optional; anything else not a number fails.
std::optional<std::optional<std::uint64_t>> limit_value(std::string_view text) {
  if (text == "unlimited") return std::optional<std::uint64_t>{};
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return std::optional<std::uint64_t>{value};
}

}  // namespace

std::optional<LimitPair> parse_memlock_limit(std::string_view limits) {
  for (std::string_view line : split_nonempty_lines(limits)) {
    if (!line.starts_with(k_memlock_name)) continue;
    // The name has spaces of its own: the values are the words after it.
    std::vector<std::string_view> words = split_words(line.substr(k_memlock_name.size()));
    if (words.size() < 2) return std::nullopt;
    auto soft = limit_value(words[0]);
    auto hard = limit_value(words[1]);
    if (!soft || !hard) return std::nullopt;
    return LimitPair{*soft, *hard};
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_effective_capabilities(std::string_view status) {
  for (std::string_view line : split_nonempty_lines(status)) {
    if (!line.starts_with("CapEff:")) continue;
    std::string_view hex = trim_whitespace(line.substr(7));
    std::uint64_t mask = 0;
    auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), mask, 16);
    if (hex.empty() || error != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
    return mask;
  }
  return std::nullopt;
}

}  // namespace gd
