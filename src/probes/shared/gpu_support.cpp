#include "probes/shared/gpu_support.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <string>
#include <vector>
#include "core/fact_key.hpp"

namespace gd {
namespace {

constexpr std::string_view k_source = "pci.gpu.* (GPU table) and the nvidia module's version and GPU list";

const Fact* present(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  return fact && fact->state == FactState::present ? fact : nullptr;
}

/// Why `name` gives no value: its reason when unknown, or that it was not collected.
std::string why_missing(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  if (!fact) {
    return std::string(name) + " was not collected";
  }
  return std::string(name) + (fact->state == FactState::absent ? " is absent" : " is unknown: " + fact->reason);
}

// Drivers that hand the GPU to a virtual machine or to user space (as probes/pci): the host's
// nvidia driver is not meant to drive such a GPU.
bool passthrough_driver(std::string_view driver) {
  return driver == "pci-stub" || driver.find("vfio") != std::string_view::npos;
}

/// The version the GPUs are judged against: the loaded module's, or, when none is loaded, the
/// one modprobe would load. Nullopt with `why` when it cannot be told; an empty string when no
/// module is installed at all (nothing is "too old" then: the not-built rule says so).
std::optional<std::string> driver_version(const FactSet& facts, std::string& why) {
  std::optional<bool> loaded = facts.get_bool("kmod.nvidia.loaded"_fact);
  if (!loaded) {
    why = why_missing(facts, "kmod.nvidia.loaded"_fact);
    return std::nullopt;
  }
  const FactName name = *loaded ? "kmod.nvidia.version"_fact : "kmod.nvidia.disk_version"_fact;
  if (auto version = facts.get_string(name); version && present(facts, name)) {
    return *version;
  }
  const Fact* fact = facts.find(name);
  if (!*loaded && fact && fact->state == FactState::absent) {
    return std::string();
  }
  why = why_missing(facts, name);
  return std::nullopt;
}

/// Bus ids under /proc/driver/nvidia/gpus ("0000:1b:00.0 NVIDIA B300 SXM6 AC" -> "0000:1b:00.0").
std::optional<std::set<std::string, std::less<>>> listed_buses(const FactSet& facts) {
  const Fact* fact = present(facts, "kmod.nvidia.gpus"_fact);
  if (!fact) {
    const Fact* any = facts.find("kmod.nvidia.gpus"_fact);
    if (any && any->state == FactState::absent) {
      return std::set<std::string, std::less<>>{};  // not loaded: lists nothing
    }
    return std::nullopt;
  }
  std::set<std::string, std::less<>> out;
  if (const auto* lines = std::get_if<std::vector<std::string>>(&fact->value)) {
    for (const std::string& line : *lines) {
      out.insert(line.substr(0, line.find(' ')));
    }
  }
  return out;
}

}  // namespace

std::optional<int> compare_driver_versions(std::string_view a, std::string_view b) {
  auto valid = [](std::string_view v) {
    return !v.empty() && v.front() != '.' && v.back() != '.' &&
           std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
           v.find("..") == std::string_view::npos;
  };
  if (!valid(a) || !valid(b)) {
    return std::nullopt;
  }
  auto take = [](std::string_view& v) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    std::size_t used = static_cast<std::size_t>(end - v.data());
    v.remove_prefix(std::min(v.size(), used + 1));  // the number and its dot
    return ec == std::errc() ? value : 0;
  };
  while (!a.empty() || !b.empty()) {
    std::uint64_t x = take(a);
    std::uint64_t y = take(b);
    if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

void record_gpu_support(FactSet& facts) {
  const std::string source(k_source);
  auto set_unknown = [&](const std::string& reason) {
    for (FactName name : {"kmod.nvidia.gpus_too_new"_fact, "kmod.nvidia.needed_version"_fact, "kmod.nvidia.needed_branch"_fact}) {
      facts.set_unknown(name, reason, source);
    }
  };
  if (!present(facts, "pci.nvidia_gpu_count"_fact)) {
    set_unknown(why_missing(facts, "pci.nvidia_gpu_count"_fact));
    return;
  }
  std::string version_why;
  std::optional<std::string> version = driver_version(facts, version_why);
  auto listed = listed_buses(facts);

  std::vector<std::string> too_new;
  std::string needed;
  std::string undecided;  // why some GPU could not be judged
  constexpr std::string_view k_prefix = "pci.gpu.";
  constexpr std::string_view k_suffix = ".bus_id";
  for (const auto& [name, fact] : facts.all()) {
    if (!name.starts_with(k_prefix) || !name.ends_with(k_suffix) || fact.state != FactState::present) {
      continue;
    }
    const std::string gpu = name.substr(0, name.size() - k_suffix.size());  // "pci.gpu.0"
    const std::string bus = facts.get_string(FactName::unchecked(name)).value_or("");
    const std::optional<std::string> driver = present(facts, FactName::unchecked(gpu + ".driver")) ? facts.get_string(FactName::unchecked(gpu + ".driver"))
                                                                               : std::nullopt;
    if (driver && (*driver == "nvidia" || passthrough_driver(*driver))) {
      continue;  // driven by nvidia (it probed and accepted it), or handed to a VM
    }
    if (listed && listed->contains(bus)) {
      continue;  // the driver lists it: it accepted the chip
    }
    if (!driver) {
      undecided = why_missing(facts, FactName::unchecked(gpu + ".driver"));  // it may be on vfio-pci
      continue;
    }
    const Fact* min_fact = facts.find(FactName::unchecked(gpu + ".min_driver_version"));
    if (min_fact && min_fact->state == FactState::absent) {
      continue;  // no first release recorded (pre-Blackwell GPUs, or the table has none)
    }
    std::optional<std::string> min = present(facts, FactName::unchecked(gpu + ".min_driver_version"))
                                         ? facts.get_string(FactName::unchecked(gpu + ".min_driver_version")) : std::nullopt;
    if (!min) {
      undecided = why_missing(facts, FactName::unchecked(gpu + ".min_driver_version"));
      continue;
    }
    if (!version) {
      undecided = version_why;
      continue;
    }
    if (version->empty()) {
      continue;  // no nvidia module installed: not a question of its release
    }
    std::optional<int> order = compare_driver_versions(*version, *min);
    if (!order) {
      undecided = "cannot compare driver version '" + *version + "' with '" + *min + "'";
      continue;
    }
    if (*order < 0) {
      std::string line = bus + " 10de:" + facts.get_string(FactName::unchecked(gpu + ".device_id")).value_or("????");
      if (auto chip = facts.get_string(FactName::unchecked(gpu + ".chip")); chip && present(facts, FactName::unchecked(gpu + ".chip"))) {
        line += " " + *chip;
      }
      too_new.push_back(line + " (first supported by " + *min + ")");
      if (needed.empty() || compare_driver_versions(needed, *min).value_or(0) < 0) {
        needed = *min;
      }
    }
  }
  if (too_new.empty() && !undecided.empty()) {
    set_unknown(undecided);
    return;
  }
  facts.set("kmod.nvidia.gpus_too_new"_fact, too_new, source);
  if (needed.empty()) {
    facts.set_absent("kmod.nvidia.needed_version"_fact, source, "the driver is not too old for any GPU here");
    facts.set_absent("kmod.nvidia.needed_branch"_fact, source, "the driver is not too old for any GPU here");
    return;
  }
  facts.set("kmod.nvidia.needed_version"_fact, needed, source);
  std::int64_t branch = 0;
  std::from_chars(needed.data(), needed.data() + needed.size(), branch);
  facts.set("kmod.nvidia.needed_branch"_fact, branch, source);
}

}  // namespace gd
