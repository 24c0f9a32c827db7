#include "probes/nvlink/imex_channels.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "core/fact_key.hpp"

namespace gd {
namespace {

constexpr std::string_view k_folder = "/dev/nvidia-caps-imex-channels";
constexpr std::string_view k_prefix = "channel";
// The driver allows 2048 channels (NVreg_ImexChannelCount); a node normally holds one or a few.
constexpr std::size_t k_max_entries = 4096;

}  // namespace

std::optional<int> imex_channel_number(std::string_view name) {
  if (!name.starts_with(k_prefix) || name.size() == k_prefix.size() || name.size() > k_prefix.size() + 9) return std::nullopt;
  std::string_view digits = name.substr(k_prefix.size());
  if (digits.front() < '0' || digits.front() > '9') return std::nullopt;  // from_chars takes a '-'
  int number = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return number;
}

void probe_imex_channels(Host& host, const ProbeOptions&, FactSet& facts) {
  const std::string folder(k_folder);
  auto names = host.list_dir(folder);
  if (!names) {
    if (names.error().code == ENOENT) {
      // Not created (the usual case everywhere but a multi-node NVLink node that is set up).
      facts.set_absent("nvlink.imex.channels"_fact, folder, "no " + folder + " folder");
      facts.set("nvlink.imex.channel_count"_fact, std::int64_t{0}, folder);
    } else {
      std::string reason = unreadable_reason(names.error(), host);
      facts.set_unknown("nvlink.imex.channels"_fact, reason, folder);
      facts.set_unknown("nvlink.imex.channel_count"_fact, reason, folder);
    }
    return;
  }
  std::vector<std::pair<int, std::string>> channels;
  for (std::size_t i = 0; i < names->size() && i < k_max_entries; ++i) {
    const std::string& name = (*names)[i];
    auto number = imex_channel_number(name);
    if (!number) continue;
    // Only character devices open as channels (a regular file left by a script does not).
    auto st = host.stat(folder + "/" + name);
    if (st && st->kind == FileKind::char_device) channels.emplace_back(*number, name);
  }
  std::ranges::sort(channels);
  std::vector<std::string> listed;
  for (auto& [number, name] : channels) listed.push_back(std::move(name));
  facts.set("nvlink.imex.channel_count"_fact, static_cast<std::int64_t>(listed.size()), folder);
  facts.set("nvlink.imex.channels"_fact, listed, folder);
}

}  // namespace gd
