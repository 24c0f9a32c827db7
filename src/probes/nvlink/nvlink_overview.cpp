// The overview line of the NVLink layer (probes/nvlink): how many GPUs have NVLink, how many
// links each, whether they are all up, and which are down; on a multi-node NVLink node, its IMEX
// channels.

#include "probes/nvlink/nvlink_overview.hpp"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd::areas {
namespace {

/// "GPU 3 (00000000:1B:00.0) link 7" -> "GPU 3 link 7".
std::string short_link(const std::string& item) {
  std::size_t open = item.find(" (");
  std::size_t close = item.find(") ");
  if (open == std::string::npos || close == std::string::npos || close < open) return item;
  return item.substr(0, open) + item.substr(close + 1);
}

std::string down_text(const std::vector<std::string>& fewer, const std::vector<std::string>& down) {
  std::vector<std::string> named;
  for (const std::string& item : down) {
    std::string gpu = item.substr(0, item.find(" ("));
    bool of_fewer = false;
    for (const std::string& entry : fewer) of_fewer = of_fewer || entry.starts_with(gpu + " (") || entry.starts_with(gpu + ":");
    if (of_fewer) named.push_back(short_link(item));
  }
  if (named.empty()) return plural(static_cast<std::int64_t>(fewer.size()), "GPU") + " with fewer links up than the others";
  std::size_t shown = std::min<std::size_t>(named.size(), 4);
  std::string text = fmt::format("{}", fmt::join(named.begin(), named.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
  if (named.size() > shown) text += fmt::format(" and {} more", named.size() - shown);
  return text + " down";
}

/// The IMEX state of a multi-node NVLink node, only when there is one: "IMEX: 1 channel", or
/// "IMEX running, no channel" (the daemon runs but nothing can use it); nothing elsewhere.
std::optional<std::string> imex_text(const FactSet& facts) {
  auto channels = facts.get_int("nvlink.imex.channel_count"_fact);
  if (channels && *channels > 0) return "IMEX: " + plural(*channels, "channel");
  if (facts.get_bool("service.imex.running"_fact) == true && channels == 0) return "IMEX running, no channel";
  return std::nullopt;
}

}  // namespace

AreaLine nvlink_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto gpus = facts.get_int("nvlink.gpus_with_links"_fact);
  if (!gpus) {
    // Links not read: a single GPU has no peer to link to whatever they are (the real H200's
    // captures predate the NVLink queries); without NVML's answer the line is not checked, as
    // NVML's own line says; otherwise it is unknown.
    auto nvml_gpus = facts.get_int("nvml.device_count"_fact);
    if (nvml_gpus == 1) {
      line.status = status_for(findings, layer, AreaStatus::ok);
      line.summary = "1 GPU: no NVLink peers";
    } else if (facts.get_bool("nvml.loaded"_fact) != true || facts.get_int("nvml.init.result"_fact) != 0) {
      line.status = AreaStatus::skipped;
      line.summary = "not checked: NVML did not answer (" + unknown_reason(facts, "nvlink.gpus_with_links"_fact) + ")";
    } else {
      line.status = status_for(findings, layer, AreaStatus::unknown);
      line.summary = "unknown (" + unknown_reason(facts, "nvlink.gpus_with_links"_fact) + ")";
    }
    return line;
  }
  if (*gpus == 0) {
    line.status = status_for(findings, layer, AreaStatus::ok);
    line.summary = "none (PCIe only)";
    return line;
  }
  std::vector<std::string> parts;
  std::string version;
  if (auto v = facts.get_string("nvlink.version"_fact)) version = " (NVLink " + *v + ")";
  auto per_gpu = facts.get_int("nvlink.links_per_gpu"_fact);
  auto max_up = facts.get_int("nvlink.max_links_up"_fact).value_or(0);
  std::vector<std::string> down = list_of(facts, "nvlink.links_down"_fact);
  std::vector<std::string> fewer = list_of(facts, "nvlink.gpus_fewer_links"_fact);
  std::string gpu_text = plural(*gpus, "GPU");
  if (max_up == 0) {
    parts.push_back(per_gpu ? fmt::format("{}, {} links each, none up (no bridge or switch: PCIe only)", gpu_text, *per_gpu)
                            : gpu_text + " with links, none up (PCIe only)");
  } else if (!fewer.empty()) {
    parts.push_back(down_text(fewer, down));
  } else if (down.empty()) {
    parts.push_back(per_gpu ? fmt::format("{}, {} links each, all up{}", gpu_text, *per_gpu, version)
                            : fmt::format("{}, all links up{}", gpu_text, version));
  } else {
    parts.push_back(per_gpu ? fmt::format("{}, {} of {} links up each{}", gpu_text, max_up, *per_gpu, version)
                            : fmt::format("{}, up to {} links up{}", gpu_text, max_up, version));
  }
  std::vector<std::string> errors = list_of(facts, "nvlink.error_links"_fact);
  if (!errors.empty()) parts.push_back(plural(static_cast<std::int64_t>(errors.size()), "link") + " with errors since the driver loaded");
  if (auto imex = imex_text(facts)) parts.push_back(*imex);
  line.summary = fmt::format("{}", fmt::join(parts, "; "));
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
