#include "probes/limits/shm_mount.hpp"

#include <charconv>
#include <limits>

#include "probes/shared/mountinfo.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

std::optional<std::uint64_t> to_number(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// "65536k", "64m", "1g" or bytes: the units tmpfs(5) accepts, without "%" (the kernel never
/// prints one back). nullopt for anything else or a value that overflows.
std::optional<std::uint64_t> size_in_bytes(std::string_view text) {
  std::uint64_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k': case 'K': scale = 1024; break;
      case 'm': case 'M': scale = 1024 * 1024; break;
      case 'g': case 'G': scale = 1024 * 1024 * 1024; break;
      default: break;
    }
  }
  if (scale != 1) text.remove_suffix(1);
  auto value = to_number(text);
  if (!value || *value > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
  return *value * scale;
}

}  // namespace

std::optional<ShmMount> find_shm_mount(std::string_view mountinfo) {
  std::optional<ShmMount> found;
  for (MountEntry& entry : parse_mountinfo(mountinfo)) {
    if (entry.mount_point != k_shm_path) continue;
    found = ShmMount{std::move(entry.fstype), std::move(entry.super_options)};  // a later line is a mount on top
  }
  return found;
}

TmpfsSize tmpfs_size(std::string_view super_options) {
  TmpfsSize out;
  for (std::string_view option : split_nonempty(super_options, ',')) {
    if (!option.starts_with("size=")) continue;
    auto bytes = size_in_bytes(option.substr(5));
    if (!bytes) {
      out = TmpfsSize{TmpfsSize::Kind::malformed, 0};
    } else if (*bytes == 0) {
      out = TmpfsSize{TmpfsSize::Kind::unlimited, 0};  // tmpfs(5): "size=0" removes the limit
    } else {
      out = TmpfsSize{TmpfsSize::Kind::bytes, *bytes};
    }
  }
  return out;
}

std::optional<std::uint64_t> meminfo_total_bytes(std::string_view meminfo) {
  for (std::string_view line : split_nonempty_lines(meminfo)) {
    std::vector<std::string_view> words = split_words(line);
    if (words.size() >= 2 && words[0] == "MemTotal:") {
      auto kib = to_number(words[1]);
      if (!kib || (words.size() >= 3 && words[2] != "kB") || *kib > std::numeric_limits<std::uint64_t>::max() / 1024) return std::nullopt;
      return *kib * 1024;
    }
  }
  return std::nullopt;
}

}  // namespace gd
