#include "report/run_info.hpp"

#include <array>
#include <utility>

namespace gd {
namespace {

constexpr std::array<std::pair<RunMode, std::string_view>, 4> k_modes{{
    {RunMode::live, "live"},
    {RunMode::root, "root"},
    {RunMode::replay, "replay"},
    {RunMode::preflight, "preflight"},
}};

constexpr std::array<std::pair<RunScope, std::string_view>, 2> k_scopes{{
    {RunScope::all, "all"},
    {RunScope::node, "node"},
}};

template <typename Enum, std::size_t N>
std::string_view word_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [e, word] : table) {
    if (e == value) return word;
  }
  return "";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, std::string_view>, N>& table, std::string_view text) {
  for (const auto& [e, word] : table) {
    if (word == text) return e;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(RunMode mode) { return word_of(k_modes, mode); }
std::string_view to_string(RunScope scope) { return word_of(k_scopes, scope); }
std::optional<RunMode> parse_run_mode(std::string_view text) { return value_of(k_modes, text); }
std::optional<RunScope> parse_run_scope(std::string_view text) { return value_of(k_scopes, text); }

}  // namespace gd
