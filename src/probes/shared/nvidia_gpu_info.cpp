#include "probes/shared/nvidia_gpu_info.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <span>

namespace gd {
namespace {

constexpr std::string_view k_params_path = "/proc/driver/nvidia/params";
constexpr std::string_view k_gpus_dir = "/proc/driver/nvidia/gpus";
constexpr std::size_t k_max_proc_file = 64 * 1024;
// NV_MAX_DEVICES is 32 in the open module (nv.h); more entries than this are not GPUs.
constexpr std::size_t k_max_gpus = 64;

/// Calls `each(key, value)` for every "Key: value" line (split at the first ':').
template <typename Each>
void for_each_key_value(std::string_view text, Each each) {
  for (std::string_view line : split_lines(text)) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    each(trim_whitespace(line.substr(0, colon)), trim_whitespace(line.substr(colon + 1)));
  }
}

std::optional<std::int64_t> to_int(std::string_view text) {
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<GpuInformation> parse_gpu_information(std::string_view text) {
  GpuInformation info;
  bool known = false;
  // nv-procfs.c: "Model: \t\t %s", "GPU UUID: \t %s", "Bus Location: \t %04x:%02x:%02x.%x", "Device Minor: \t %u",
  // "GPU Firmware: \t %s" (missing, or "N/A", when there is no running firmware version),
  // "GPU Excluded:\t %s".
  for_each_key_value(text, [&](std::string_view key, std::string_view value) {
    if (key == "Model") {
      info.model = std::string(value);
      known = true;
    } else if (key == "GPU UUID") {
      info.uuid = std::string(value);
      known = true;
    } else if (key == "Bus Location") {
      info.bus_location = std::string(value);
      known = true;
    } else if (key == "Device Minor") {
      if (auto minor = to_int(value); minor && *minor >= 0 && *minor < 256) {
        info.device_minor = static_cast<int>(*minor);
      }
      known = true;
    } else if (key == "GPU Firmware") {
      // "N/A": firmware was requested but the GPU reports no running firmware version (not
      // initialised, or GSP failed to boot) (src/nvidia/arch/nvalloc/unix/src/osapi.c
      // rm_get_firmware_version, 580; osinit.c RmGetFirmwareVersion, 595).
      if (value != "N/A") {
        info.gpu_firmware = std::string(value);
      }
      known = true;
    } else if (key == "GPU Excluded") {
      if (value == "Yes") {
        info.excluded = true;
      } else if (value == "No") {
        info.excluded = false;
      }
      known = true;
    }
  });
  if (!known) {
    return std::nullopt;
  }
  return info;
}

std::map<std::string, std::string, std::less<>> parse_nvidia_params(std::string_view text) {
  // nv-procfs.c nv_procfs_read_params(): "%s: %u" for the numeric parameters, then
  // RegistryDwords, RmMsg, ExcludedGpus, ... as "%s: \"%s\"". Quotes are taken off.
  std::map<std::string, std::string, std::less<>> out;
  for_each_key_value(text, [&](std::string_view key, std::string_view value) {
    if (key.empty()) {
      return;
    }
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    out.insert_or_assign(std::string(key), std::string(value));
  });
  return out;
}

std::optional<std::string> nvidia_param_for(Host& host, FactSet& facts, FactName name, std::string_view key,
                                            const std::string& no_line_reason) {
  const std::string source(k_params_path);
  auto text = host.read_file(k_params_path, k_max_proc_file);
  if (!text) {
    if (text.error().code == ENOENT) {
      facts.set_absent(name, source, "the nvidia module is not loaded");
    } else {
      facts.set_unknown(name, unreadable_reason(text.error(), host), source);
    }
    return std::nullopt;
  }
  auto params = parse_nvidia_params(*text);
  auto it = params.find(key);
  if (it == params.end()) {
    facts.set_absent(name, source, no_line_reason);
    return std::nullopt;
  }
  return it->second;
}

void record_nvidia_params(Host& host, FactSet& facts) {
  constexpr FactName k_fact = "kmod.nvidia.params.enable_gpu_firmware"_fact;
  // Drivers before GSP firmware (R510) have no such parameter.
  auto value = nvidia_param_for(host, facts, k_fact, "EnableGpuFirmware", "no EnableGpuFirmware line (driver without GSP firmware support)");
  if (!value) return;
  if (auto number = to_int(*value)) {
    facts.set(k_fact, *number, std::string(k_params_path));
  } else {
    facts.set_unknown(k_fact, "unrecognised value '" + *value + "'", std::string(k_params_path));
  }
}

void record_gpu_information(Host& host, FactSet& facts) {
  const std::string source = std::string(k_gpus_dir) + "/*/information";
  constexpr std::array<FactName, 6> k_facts = {
      "kmod.nvidia.gpu_count"_fact,     "kmod.nvidia.gpus"_fact,          "kmod.nvidia.gpu_firmware_versions"_fact,
      "kmod.nvidia.device_minors"_fact, "kmod.nvidia.excluded_gpus"_fact, "kmod.nvidia.gpu_firmware_missing"_fact,
  };
  auto names = host.list_dir(k_gpus_dir);
  if (!names) {
    for (FactName fact : k_facts) {
      if (names.error().code == ENOENT) {
        facts.set_absent(fact, source, "no /proc/driver/nvidia/gpus: the nvidia module is not loaded");
      } else {
        facts.set_unknown(fact, unreadable_reason(names.error(), host), source);
      }
    }
    return;
  }
  std::vector<std::string> gpus, firmware, minors, excluded, firmware_missing;
  std::int64_t count = 0;
  std::string unreadable;
  for (const std::string& name : *names) {
    if (static_cast<std::size_t>(count) >= k_max_gpus) {
      break;
    }
    ++count;
    std::string path = std::string(k_gpus_dir) + "/" + name + "/information";
    auto text = host.read_file(path, k_max_proc_file);
    if (!text) {
      unreadable = path + ": " + unreadable_reason(text.error(), host);
      continue;
    }
    auto info = parse_gpu_information(*text);
    if (!info) {
      unreadable = path + ": unrecognised content";
      continue;
    }
    std::string bus = info->bus_location.empty() ? name : info->bus_location;
    gpus.push_back(bus + " " + (info->model.empty() ? std::string("(no model)") : info->model));
    if (!info->gpu_firmware.empty()) {
      firmware.push_back(info->gpu_firmware);
    } else {
      firmware_missing.push_back(bus);
    }
    if (info->device_minor) {
      minors.push_back(std::to_string(*info->device_minor));
    }
    if (info->excluded == true) {
      excluded.push_back(bus);
    }
  }
  facts.set("kmod.nvidia.gpu_count"_fact, count, source);
  if (!unreadable.empty()) {
    // Lists built from part of the GPUs would mislead: say which file failed.
    for (FactName fact : std::span(k_facts).subspan(1)) {
      facts.set_unknown(fact, unreadable, source);
    }
    return;
  }
  facts.set("kmod.nvidia.gpus"_fact, gpus, source);
  facts.set("kmod.nvidia.gpu_firmware_versions"_fact, firmware, source);
  facts.set("kmod.nvidia.device_minors"_fact, minors, source);
  facts.set("kmod.nvidia.excluded_gpus"_fact, excluded, source);
  facts.set("kmod.nvidia.gpu_firmware_missing"_fact, firmware_missing, source);
}

}  // namespace gd
