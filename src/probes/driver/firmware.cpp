#include "probes/driver/firmware.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>

namespace gd {
namespace {

constexpr std::string_view k_class_path_param = "/sys/module/firmware_class/parameters/path";
// The kernel decompresses firmware it finds with these suffixes (CONFIG_FW_LOADER_COMPRESS_ZSTD
// / _XZ, drivers/base/firmware_loader/main.c), so a compressed file counts as present.
constexpr std::string_view k_suffixes[] = {"", ".zst", ".xz"};
constexpr std::size_t k_max_versions_listed = 16;

int major_of(std::string_view version) {
  int major = 0;
  auto [ptr, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  return ec == std::errc() ? major : 0;
}

bool is_directory(Host& host, const std::string& path) {
  auto st = host.stat(path);
  return st && st->kind == FileKind::directory;
}

/// The full path of `name` (or its compressed form) in `dir`, if it is a file there.
std::optional<std::string> find_file(Host& host, const std::string& dir, const std::string& name) {
  for (std::string_view suffix : k_suffixes) {
    std::string path = dir + "/" + name + std::string(suffix);
    auto st = host.stat(path);
    if (st && st->kind == FileKind::regular) {
      return path;
    }
  }
  return std::nullopt;
}

/// The distinct GSP files the GPUs need, from the pci probe's facts; nullopt (with `why`) when a
/// GPU's family is not known.
std::optional<std::vector<std::string>> needed_files(const FactSet& facts, std::string_view version, std::string& why) {
  std::vector<std::string> out;
  bool any_gpu = false;
  bool any_other_driver = false;  // GPUs seen, but driven by vfio-pci, nouveau, ...
  constexpr std::string_view k_prefix = "pci.gpu.";
  constexpr std::string_view k_suffix = ".gsp_firmware_file";
  for (const auto& [name, fact] : facts.all()) {
    if (!name.starts_with(k_prefix) || !name.ends_with(k_suffix)) {
      continue;
    }
    std::string gpu = name.substr(0, name.size() - k_suffix.size());  // "pci.gpu.0"
    auto driver = facts.get_string(FactName::unchecked(FactName::unchecked(gpu + ".driver")));
    if (driver && *driver != "nvidia" && *driver != "none") {
      any_other_driver = true;
      continue;  // vfio-pci, nouveau: the nvidia module does not drive this GPU
    }
    any_gpu = true;
    if (fact.state == FactState::absent) {
      continue;  // pre-Turing: no GSP
    }
    auto file = facts.get_string(FactName::unchecked(name));
    if (fact.state != FactState::present || !file) {
      why =
          name + " is " + (fact.state == FactState::unknown ? "unknown: " + fact.reason : std::string("not a string"));
      return std::nullopt;
    }
    auto architecture = facts.get_string(FactName::unchecked(FactName::unchecked(gpu + ".architecture"))).value_or("");
    auto needed = gsp_file_for(version, architecture, *file);
    if (!needed) {
      why = "GSP firmware file names of driver " + std::string(version) + " are not known";
      return std::nullopt;
    }
    if (std::find(out.begin(), out.end(), *needed) == out.end()) {
      out.push_back(*needed);
    }
  }
  if (!any_gpu && any_other_driver) {
    return out;  // a passthrough host: every GPU is on vfio-pci (or nouveau), none needs the module's firmware
  }
  if (!any_gpu) {
    why = "no pci.gpu.*.gsp_firmware_file facts: which file the GPUs need is unknown";
    return std::nullopt;
  }
  return out;
}

void set_all(FactSet& facts, std::initializer_list<FactName> names, FactState state, const std::string& reason,
             const std::string& source) {
  for (FactName name : names) {
    if (state == FactState::absent) {
      facts.set_absent(name, source, reason);
    } else {
      facts.set_unknown(name, reason, source);
    }
  }
}

void record_loaded_by_gpus(FactSet& facts, const std::string& version) {
  const FactSet& in = facts;
  const std::string source = "/proc/driver/nvidia/gpus/*/information";
  const Fact* count = in.find("kmod.nvidia.gpu_count"_fact);
  const Fact* firmware = in.find("kmod.nvidia.gpu_firmware_versions"_fact);
  if (!count || !firmware || count->state != FactState::present || firmware->state != FactState::present) {
    const Fact* missing = !count || count->state != FactState::present ? count : firmware;
    if (missing && missing->state == FactState::absent) {
      facts.set_absent("firmware.loaded_by_gpus"_fact, source, "no GPU information");
    } else {
      facts.set_unknown("firmware.loaded_by_gpus"_fact, missing ? missing->reason : "GPU information not collected", source);
    }
    return;
  }
  auto gpus = in.get_int("kmod.nvidia.gpu_count"_fact).value_or(0);
  if (gpus == 0) {
    facts.set_absent("firmware.loaded_by_gpus"_fact, source, "the module lists no GPU");
    return;
  }
  facts.set("firmware.loaded_by_gpus"_fact,
            firmware_loaded_by_all(version, std::get<std::vector<std::string>>(firmware->value), gpus), source);
}

}  // namespace

std::vector<std::string> firmware_search_dirs(std::string_view class_path, std::string_view release) {
  std::vector<std::string> dirs;
  class_path = trim_whitespace(class_path);
  while (class_path.size() > 1 && class_path.back() == '/') {
    class_path.remove_suffix(1);
  }
  if (!class_path.empty()) {
    dirs.emplace_back(class_path);
  }
  dirs.push_back("/lib/firmware/updates/" + std::string(release));
  dirs.push_back("/lib/firmware/updates");
  dirs.push_back("/lib/firmware/" + std::string(release));
  dirs.push_back("/lib/firmware");
  return dirs;
}

std::optional<std::string> gsp_file_for(std::string_view driver_version, std::string_view architecture,
                                        std::string_view file_for_530_and_later) {
  // nv-firmware.h nv_firmware_for_chip_family(): GB10X/GB20X/GB10Y/GB20Y (every Blackwell),
  // GH100, AD10X and GA10X load gsp_ga10x; GA100, TU11X and TU10X load gsp_tu10x.
  if (architecture == "Blackwell") {
    return std::string("gsp_ga10x.bin");
  }
  int major = major_of(driver_version);
  if (major >= 530) {
    if (file_for_530_and_later.empty()) {
      return std::nullopt;
    }
    return std::string(file_for_530_and_later);
  }
  // Older branches, from the open-gpu-kernel-modules tags: 525.x nv-firmware.h gives AD10X
  // gsp_ad10x.bin and every other family gsp_tu10x.bin; 515.43.04-520.61.05 nv.c load one
  // NV_FIRMWARE_GSP_FILENAME "nvidia/<version>/gsp.bin" for all. Before 515 there is no source.
  if (major >= 525) {
    return std::string(architecture == "Ada" ? "gsp_ad10x.bin" : "gsp_tu10x.bin");
  }
  if (major >= 515) {
    return std::string("gsp.bin");
  }
  return std::nullopt;
}

bool firmware_loaded_by_all(std::string_view module_version, const std::vector<std::string>& firmware_versions,
                            std::int64_t gpu_count) {
  if (gpu_count <= 0 || firmware_versions.size() != static_cast<std::size_t>(gpu_count)) {
    return false;
  }
  return std::all_of(firmware_versions.begin(), firmware_versions.end(),
                     [&](const std::string& version) { return version == module_version; });
}

void probe_gsp_firmware(Host& host, const ProbeOptions&, FactSet& facts) {
  const std::string release = host.uname().release;
  std::string class_path;
  auto param = host.read_file(k_class_path_param, 4096);
  if (param) {
    class_path = std::string(trim_whitespace(*param));
  }
  if (class_path.empty()) {
    facts.set_absent("firmware.class_path"_fact, std::string(k_class_path_param),
                     param                          ? std::string("not set")
                     : param.error().code == ENOENT ? std::string("no firmware_class path parameter")
                                                    : "not readable: " + param.error().describe());
  } else {
    facts.set("firmware.class_path"_fact, class_path, std::string(k_class_path_param));
  }
  std::vector<std::string> dirs = firmware_search_dirs(class_path, release);
  facts.set("firmware.search_dirs"_fact, dirs, "Documentation/driver-api/firmware/fw_search_path.rst");

  const std::initializer_list<FactName> k_version_facts = {
      "firmware.version_dir"_fact, "firmware.expected_dir"_fact,  "firmware.other_versions"_fact, "firmware.needed_files"_fact,
      "firmware.found_files"_fact, "firmware.missing_files"_fact, "firmware.loaded_by_gpus"_fact};
  const Fact* version_fact = facts.find("kmod.nvidia.version"_fact);
  if (!version_fact || version_fact->state != FactState::present) {
    bool absent = version_fact && version_fact->state == FactState::absent;
    set_all(facts, k_version_facts, absent ? FactState::absent : FactState::unknown,
            absent ? "the nvidia module is not loaded" : "the loaded module's version is unknown",
            "kmod.nvidia.version"_fact);
    return;
  }
  const std::string version = std::get<std::string>(version_fact->value);
  record_loaded_by_gpus(facts, version);

  const std::string relative = "nvidia/" + version;
  // Driver packages install into /lib/firmware/nvidia/<version>; a system that sets
  // firmware_class.path (NixOS) keeps its firmware there instead.
  facts.set("firmware.expected_dir"_fact,
            (class_path.empty() ? std::string("/lib/firmware") : dirs.front()) + "/" + relative,
            "kernel-open/nvidia/nv.c NV_FIRMWARE_FOR_NAME");

  std::string version_dir;
  std::vector<std::string> other_versions;
  for (const std::string& dir : dirs) {
    if (version_dir.empty() && is_directory(host, dir + "/" + relative)) {
      version_dir = dir + "/" + relative;
    }
    if (auto names = host.list_dir(dir + "/nvidia")) {
      for (const std::string& name : *names) {
        if (name != version && other_versions.size() < k_max_versions_listed &&
            std::find(other_versions.begin(), other_versions.end(), dir + "/nvidia/" + name) == other_versions.end() &&
            !name.empty() && name.front() >= '0' && name.front() <= '9') {
          other_versions.push_back(dir + "/nvidia/" + name);
        }
      }
    }
  }
  const std::string search_source = "firmware.search_dirs"_fact;
  if (version_dir.empty()) {
    facts.set_absent("firmware.version_dir"_fact, search_source, "no " + relative + " in any search folder");
  } else {
    facts.set("firmware.version_dir"_fact, version_dir, search_source);
  }
  facts.set("firmware.other_versions"_fact, other_versions, search_source);

  std::string why;
  auto needed = needed_files(facts, version, why);
  if (!needed) {
    set_all(facts, {"firmware.needed_files"_fact, "firmware.found_files"_fact, "firmware.missing_files"_fact}, FactState::unknown, why,
            "pci.gpu.*.gsp_firmware_file"_pattern);
    return;
  }
  std::vector<std::string> found, missing;
  for (const std::string& name : *needed) {
    std::optional<std::string> path;
    // The kernel takes the first folder that has the file (fw_get_filesystem_firmware()).
    for (const std::string& dir : dirs) {
      if ((path = find_file(host, dir + "/" + relative, name))) {
        break;
      }
    }
    if (path) {
      found.push_back(*path);
    } else {
      missing.push_back(name);
    }
  }
  facts.set("firmware.needed_files"_fact, *needed, "pci.gpu.*.gsp_firmware_file"_pattern);
  facts.set("firmware.found_files"_fact, found, search_source);
  facts.set("firmware.missing_files"_fact, missing, search_source);
}

}  // namespace gd
