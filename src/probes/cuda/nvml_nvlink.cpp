#include "probes/cuda/nvml_nvlink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "core/fact_key.hpp"

namespace gd {
namespace {

const std::string k_source = "helper:nvml-nvlink";

std::optional<std::int64_t> number(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

/// nvmlNvlinkVersion_t (nvml.h 12.8 on; earlier drivers answered the same enum undocumented,
/// open-mpi/hwloc#658: an A100 says 4, NVLink 3.0).
std::string version_text(std::int64_t value) {
  static constexpr std::array<std::string_view, 9> k_versions = {"", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0", "6.0"};
  if (value > 0 && value < static_cast<std::int64_t>(k_versions.size())) return std::string(k_versions[value]);
  return fmt::format("unknown ({})", value);
}

/// The replay, recovery and CRC counters of one link, in nvmlNvLinkErrorCounter_t's order.
constexpr std::array<std::string_view, 4> k_counters = {"replay_errors", "recovery_errors", "crc_flit_errors", "crc_data_errors"};
constexpr std::array<std::string_view, 4> k_counter_words = {"replay", "recovery", "CRC flit", "CRC data"};

struct Link {
  std::optional<std::int64_t> state;
  std::optional<std::int64_t> version;
  std::optional<std::string> remote_bus_id;
  std::optional<std::int64_t> remote_type;
  std::array<std::optional<std::int64_t>, 4> counters;
  std::optional<std::int64_t> recovery_failed;
  bool counters_unknown = false;  ///< a counter query failed with something other than NOT_SUPPORTED
};

/// One GPU's NVLink as its lines say: no NVLink, its links, or why it cannot be told.
struct GpuLinks {
  bool no_nvlink = false;   ///< NOT_SUPPORTED: a PCIe GPU or a VM's GPU
  std::string unknown_why;  ///< non-empty: not decided
  std::map<int, Link> links;
};

GpuLinks parse_gpu(const HelperNvmlDevice& dev) {
  GpuLinks out;
  const auto& lines = dev.nvlink;
  if (lines.empty()) {
    out.unknown_why = "the helper wrote no NVLink lines for it";
    return out;
  }
  if (auto error = lines.find("error"); error != lines.end()) {
    out.unknown_why = error->second;  // "missing symbol nvmlDeviceGetNvLinkState": an old driver
    return out;
  }
  if (auto result = lines.find("result"); result != lines.end()) {
    if (result->second == "3") {
      out.no_nvlink = true;
    } else {
      out.unknown_why = "nvmlDeviceGetNvLinkState returned " + result->second;
    }
    return out;
  }
  for (const auto& [key, value] : lines) {
    std::size_t dot = key.find('.');
    if (dot == std::string::npos) continue;  // links, links_up, link_count: recounted below
    auto index = number(std::string_view(key).substr(0, dot));
    if (!index || *index < 0 || *index > 64) continue;
    std::string_view field = std::string_view(key).substr(dot + 1);
    Link& link = out.links[static_cast<int>(*index)];
    if (field == "state") link.state = number(value);
    if (field == "version") link.version = number(value);
    if (field == "remote_bus_id") link.remote_bus_id = value;
    if (field == "remote_type") link.remote_type = number(value);
    if (field == "recovery_failed") link.recovery_failed = number(value);
    for (std::size_t c = 0; c < k_counters.size(); ++c) {
      if (field == k_counters[c]) link.counters[c] = number(value);
      if (field == std::string(k_counters[c]) + ".result" && value != "3") link.counters_unknown = true;
      if (field == std::string(k_counters[c]) + ".error") link.counters_unknown = true;
    }
    if (field == "state.result") out.unknown_why = fmt::format("link {}: nvmlDeviceGetNvLinkState returned {}", *index, value);
  }
  std::erase_if(out.links, [](const auto& entry) { return !entry.second.state; });  // only links with a state exist
  return out;
}

std::string gpu_name(const HelperNvmlDevice& dev) {
  return dev.pci_bus_id ? fmt::format("GPU {} ({})", dev.index, *dev.pci_bus_id) : fmt::format("GPU {}", dev.index);
}

std::string smi_id(const HelperNvmlDevice& dev) { return dev.uuid.value_or(dev.pci_bus_id.value_or(std::to_string(dev.index))); }

bool in_mig_mode(const HelperNvmlDevice& dev) {
  auto it = dev.health.find("mig_mode.current");
  return it != dev.health.end() && it->second == "1";
}

/// A list of GPUs (or links) that a condition holds for, and their UUIDs; unknown when a GPU could not tell.
struct Listing {
  std::vector<std::string> items;
  std::vector<std::string> gpus;
  std::string unknown_why;

  void add_gpu(const std::string& id) {
    if (std::find(gpus.begin(), gpus.end(), id) == gpus.end()) gpus.push_back(id);
  }
  /// The list, unknown when it is empty but a GPU could not tell.
  void set(FactSet& facts, FactName name) const {
    if (items.empty() && !unknown_why.empty()) {
      facts.set_unknown(name, unknown_why, k_source);
    } else {
      facts.set(name, items, k_source);
    }
  }
  void set(FactSet& facts, FactName name, FactName gpus_name) const {
    set(facts, name);
    if (items.empty() && !unknown_why.empty()) {
      facts.set_unknown(gpus_name, unknown_why, k_source);
    } else {
      facts.set(gpus_name, gpus, k_source);
    }
  }
};

struct Decoded {
  const HelperNvmlDevice* dev;
  GpuLinks links;
  std::int64_t up = 0;
};

/// Per-GPU facts of one decided GPU.
void record_gpu(const Decoded& gpu, FactSet& facts) {
  auto key = [&](FactField<"nvlink.gpu.*."> field) { return field.at(gpu.dev->index); };
  if (gpu.links.no_nvlink) {
    for (FactField<"nvlink.gpu.*."> field : {FactField<"nvlink.gpu.*.">("links"), FactField<"nvlink.gpu.*.">("links_up"),
                                            FactField<"nvlink.gpu.*.">("version")}) {
      facts.set_absent(field.at(gpu.dev->index), k_source, "no NVLink on this GPU (NVML_ERROR_NOT_SUPPORTED)");
    }
    return;
  }
  std::vector<std::string> down, remotes, kinds;
  std::optional<std::int64_t> version;
  std::array<std::int64_t, 4> sums{};
  std::array<bool, 4> sum_known{true, true, true, true};
  std::optional<std::int64_t> recovery_failed;
  for (const auto& [index, link] : gpu.links.links) {
    if (link.state != 1) {
      down.push_back(fmt::format("link {}", index));
      continue;
    }
    if (link.version) version = std::max(version.value_or(0), *link.version);
    if (link.remote_bus_id && std::find(remotes.begin(), remotes.end(), *link.remote_bus_id) == remotes.end()) {
      remotes.push_back(*link.remote_bus_id);
    }
    if (link.remote_type) {
      std::string kind = *link.remote_type == 0 ? "GPU" : *link.remote_type == 2 ? "NVSwitch" : *link.remote_type == 1 ? "IBM NPU" : "unknown";
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    }
    for (std::size_t c = 0; c < k_counters.size(); ++c) {
      if (link.counters[c]) {
        sums[c] += *link.counters[c];
      } else {
        sum_known[c] = false;
      }
    }
    if (link.recovery_failed) recovery_failed = recovery_failed.value_or(0) + *link.recovery_failed;
  }
  std::sort(remotes.begin(), remotes.end());
  facts.set(key("links"), static_cast<std::int64_t>(gpu.links.links.size()), k_source);
  facts.set(key("links_up"), gpu.up, k_source);
  facts.set(key("links_down"), down, k_source);
  if (version) {
    facts.set(key("version"), version_text(*version), k_source);
  } else {
    facts.set_absent(key("version"), k_source, "no active link");
  }
  facts.set(key("remote_bus_ids"), remotes, k_source);
  facts.set(key("remote_kinds"), kinds, k_source);
  static constexpr std::array<FactField<"nvlink.gpu.*.">, 4> k_fields = {
      FactField<"nvlink.gpu.*.">("replay_errors"), FactField<"nvlink.gpu.*.">("recovery_errors"),
      FactField<"nvlink.gpu.*.">("crc_flit_errors"), FactField<"nvlink.gpu.*.">("crc_data_errors")};
  for (std::size_t c = 0; c < k_counters.size(); ++c) {
    if (gpu.up == 0) continue;
    if (sum_known[c]) {
      facts.set(k_fields[c].at(gpu.dev->index), sums[c], k_source);
    } else {
      facts.set_unknown(k_fields[c].at(gpu.dev->index), "not reported for every active link (NOT_SUPPORTED on Blackwell and later)", k_source);
    }
  }
  if (recovery_failed) facts.set(key("recovery_failed"), *recovery_failed, k_source);
}

/// "link 3: 12 replay, 4 CRC flit" when a counter of an active link is not zero.
std::optional<std::string> link_errors(int index, const Link& link) {
  std::vector<std::string> parts;
  for (std::size_t c = 0; c < k_counters.size(); ++c) {
    if (link.counters[c] > 0) parts.push_back(fmt::format("{} {}", *link.counters[c], k_counter_words[c]));
  }
  if (link.recovery_failed > 0) parts.push_back(fmt::format("{} failed recoveries", *link.recovery_failed));
  if (parts.empty()) return std::nullopt;
  return fmt::format("link {}: {}", index, fmt::join(parts, ", "));
}

}  // namespace

void record_no_nvlink(FactSet& facts, const std::string& why, const std::string& source) {
  for (FactName name : {"nvlink.gpus_checked"_fact, "nvlink.gpus_with_links"_fact, "nvlink.max_links_up"_fact, "nvlink.links_down"_fact,
                        "nvlink.gpus_fewer_links"_fact, "nvlink.gpus_fewer_links_gpus"_fact, "nvlink.error_links"_fact,
                        "nvlink.error_links_gpus"_fact}) {
    facts.set_unknown(name, why, source);
  }
}

void record_nvlink(const HelperReply& reply, FactSet& facts) {
  if (reply.protocol_minor < 3) {
    record_no_nvlink(facts, fmt::format("the helper of this capture predates the NVLink queries (protocol 1.{})", reply.protocol_minor),
                     k_source);
    return;
  }
  std::vector<Decoded> gpus;
  std::string unknown_why;
  bool any_mig = false;
  for (const HelperNvmlDevice& dev : reply.nvml_devices) {
    any_mig = any_mig || in_mig_mode(dev);
    Decoded gpu{&dev, parse_gpu(dev)};
    if (!gpu.links.unknown_why.empty()) {
      if (unknown_why.empty()) unknown_why = gpu_name(dev) + ": " + gpu.links.unknown_why;
      if (gpu.links.links.empty()) continue;  // one link's failure still leaves the others
    }
    for (const auto& [index, link] : gpu.links.links) gpu.up += link.state == 1;
    record_gpu(gpu, facts);
    gpus.push_back(std::move(gpu));
  }

  std::int64_t with_links = 0, max_up = 0;
  std::optional<std::int64_t> per_gpu, version;
  bool same_count = true;
  for (const Decoded& gpu : gpus) {
    if (gpu.links.links.empty()) continue;
    ++with_links;
    max_up = std::max(max_up, gpu.up);
    auto count = static_cast<std::int64_t>(gpu.links.links.size());
    if (per_gpu && *per_gpu != count) same_count = false;
    per_gpu = count;
    for (const auto& [index, link] : gpu.links.links) {
      if (link.state == 1 && link.version) version = std::max(version.value_or(0), *link.version);
    }
  }
  facts.set("nvlink.gpus_checked"_fact, static_cast<std::int64_t>(gpus.size()), k_source);
  facts.set("nvlink.gpus_with_links"_fact, with_links, k_source);
  facts.set("nvlink.max_links_up"_fact, max_up, k_source);
  if (per_gpu && same_count) facts.set("nvlink.links_per_gpu"_fact, *per_gpu, k_source);
  if (version) facts.set("nvlink.version"_fact, version_text(*version), k_source);

  Listing down, fewer, errors;
  down.unknown_why = fewer.unknown_why = errors.unknown_why = unknown_why;
  for (const Decoded& gpu : gpus) {
    std::vector<std::string> gpu_down;
    for (const auto& [index, link] : gpu.links.links) {
      if (link.state != 1) {
        gpu_down.push_back(std::to_string(index));
        if (max_up > 0) down.items.push_back(fmt::format("{} link {}", gpu_name(*gpu.dev), index));
        continue;
      }
      if (auto text = link_errors(index, link)) {
        errors.items.push_back(gpu_name(*gpu.dev) + " " + *text);
        errors.add_gpu(smi_id(*gpu.dev));
      }
      if (link.counters_unknown && errors.unknown_why.empty()) errors.unknown_why = gpu_name(*gpu.dev) + ": an error counter query failed";
    }
    // A GPU with no link up at all beside GPUs with links up is judged only where NVSwitches are on
    // the bus (HGX): NVLink-capable PCIe cards without a bridge report their links as inactive,
    // and a node may bridge some of its cards and not others.
    const bool none_up_counts = facts.get_int("pci.nvswitch_count"_fact).value_or(0) > 0;
    if (with_links >= 2 && !gpu.links.links.empty() && gpu.up < max_up && (gpu.up > 0 || none_up_counts)) {
      fewer.items.push_back(fmt::format("{}: {} of {} links up, link{} {} down; another GPU has {} up", gpu_name(*gpu.dev), gpu.up,
                                        gpu.links.links.size(), gpu_down.size() == 1 ? "" : "s", fmt::join(gpu_down, ", "), max_up));
      fewer.add_gpu(smi_id(*gpu.dev));
    }
  }
  if (any_mig) {
    // NVML reports the links of a GPU in MIG mode as down; DCGM then calls them disabled, not down.
    fewer.items.clear();
    fewer.unknown_why = "a GPU is in MIG mode, and NVML reports a MIG GPU's links as down (DCGM bug 200682374)";
  }
  down.set(facts, "nvlink.links_down"_fact);
  fewer.set(facts, "nvlink.gpus_fewer_links"_fact, "nvlink.gpus_fewer_links_gpus"_fact);
  errors.set(facts, "nvlink.error_links"_fact, "nvlink.error_links_gpus"_fact);
}

}  // namespace gd
