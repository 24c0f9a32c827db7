#include "probes/shared/account_files.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "util/text_split.hpp"

namespace gd {
namespace {

std::optional<std::uint32_t> id_field(std::string_view text) {
  std::uint32_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// Calls `take(name, id)` for each well-formed entry until it returns true.
template <typename Take>
void each_entry(std::string_view etc_file, Take take) {
  for (std::string_view line : split_nonempty_lines(etc_file)) {
    std::vector<std::string_view> fields = split_fields(line, ':');
    if (fields.size() < 3 || fields[0].empty()) continue;
    auto id = id_field(fields[2]);
    if (id && take(fields[0], *id)) return;
  }
}

}  // namespace

std::optional<std::string> passwd_home(std::string_view passwd, std::uint32_t uid) {
  for (std::string_view line : split_nonempty_lines(passwd)) {
    // name:password:uid:gid:gecos:home:shell (passwd(5))
    std::vector<std::string_view> fields = split_fields(line, ':');
    if (fields.size() < 6 || id_field(fields[2]) != uid || !fields[5].starts_with('/')) continue;
    return std::string(fields[5]);
  }
  return std::nullopt;
}

std::optional<std::string> home_folder(Host& host) {
  constexpr std::size_t k_max_passwd_bytes = 4 << 20;  // thousands of entries on a directory-less cluster node
  auto text = host.read_file("/etc/passwd", k_max_passwd_bytes);
  if (!text) return std::nullopt;
  return passwd_home(*text, host.identity().uid);
}

std::optional<std::string> account_name(std::string_view etc_file, std::uint32_t id) {
  std::optional<std::string> out;
  each_entry(etc_file, [&](std::string_view name, std::uint32_t entry) {
    if (entry == id) out = std::string(name);
    return out.has_value();
  });
  return out;
}

std::optional<std::uint32_t> account_id(std::string_view etc_file, std::string_view name) {
  std::optional<std::uint32_t> out;
  each_entry(etc_file, [&](std::string_view entry, std::uint32_t id) {
    if (entry == name) out = id;
    return out.has_value();
  });
  return out;
}

std::string octal_mode(std::uint32_t mode) { return fmt::format("{:04o}", mode & 07777); }

}  // namespace gd
