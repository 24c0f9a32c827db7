#include "probes/container/container_env.hpp"

#include <tuple>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/container/cuda_visible_devices.hpp"
#include "probes/shared/driver_cuda_versions.hpp"
#include "probes/container/nvidia_require.hpp"

namespace gd {
namespace {

/// The NVIDIA container variables and CUDA_VERSION (nullopt = unset).
struct NvidiaEnv {
  std::optional<std::string> visible_devices, driver_capabilities, require_cuda, disable_require, cuda_version;
};

NvidiaEnv set_env_facts(Host& host, FactSet& facts) {
  NvidiaEnv env;
  for (auto [name, fact, value] : {std::tuple{"NVIDIA_VISIBLE_DEVICES", "env.nvidia_visible_devices"_fact, &env.visible_devices},
                                   std::tuple{"NVIDIA_DRIVER_CAPABILITIES", "env.nvidia_driver_capabilities"_fact, &env.driver_capabilities},
                                   std::tuple{"NVIDIA_REQUIRE_CUDA", "env.nvidia_require_cuda"_fact, &env.require_cuda},
                                   std::tuple{"NVIDIA_DISABLE_REQUIRE", "env.nvidia_disable_require"_fact, &env.disable_require}}) {
    *value = host.env(name);
    std::string source = std::string("env:") + name;
    if (*value) {
      facts.set(fact, **value, source);
    } else {
      facts.set_absent(fact, source);
    }
  }
  env.cuda_version = host.env("CUDA_VERSION");
  return env;
}

/// NVIDIA_DRIVER_CAPABILITIES: unset or empty means the default "utility,compute"
/// (nvidia-container-toolkit internal/config/image: DefaultDriverCapabilities); "all" has both.
std::vector<std::string> missing_capabilities(const std::optional<std::string>& value) {
  if (!value || value->find_first_not_of(" ") == std::string::npos) {
    return {};
  }
  std::vector<std::string> listed;
  for (std::size_t pos = 0; pos <= value->size();) {
    std::size_t end = value->find(',', pos);
    if (end == std::string::npos) end = value->size();
    std::string item = value->substr(pos, end - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    listed.push_back(item);
    pos = end + 1;
  }
  auto has = [&](std::string_view name) {
    for (const std::string& item : listed) {
      if (item == name || item == "all") return true;
    }
    return false;
  };
  std::vector<std::string> missing;
  for (std::string_view needed : {"compute", "utility"}) {
    if (!has(needed)) missing.emplace_back(needed);
  }
  return missing;
}

/// strconv.ParseBool's true spellings (cuda_image.go HasDisableRequire).
bool parse_go_bool(const std::string& text) {
  return text == "1" || text == "t" || text == "T" || text == "TRUE" || text == "true" || text == "True";
}

/// "12.2" from CUDA_VERSION "12.2.2" (cuda_image.go legacyVersion: major.minor).
std::optional<std::string> major_minor(const std::string& version) {
  std::string_view text = version;
  if (text.starts_with("v")) text.remove_prefix(1);
  std::size_t first = text.find('.');
  if (first == 0 || first == std::string_view::npos) return std::nullopt;
  std::size_t second = text.find('.', first + 1);
  std::string_view out = text.substr(0, second);
  if (out.find_first_not_of("0123456789.") != std::string_view::npos || out.back() == '.') return std::nullopt;
  return std::string(out);
}

void set_require_facts(const NvidiaEnv& env, FactSet& facts) {
  const std::string module_source = "kmod.nvidia.version"_fact;
  std::optional<std::string> driver = facts.get_string("kmod.nvidia.version"_fact);
  std::optional<std::string> cuda = driver ? cuda_version_for_driver(*driver) : std::nullopt;
  if (cuda) {
    facts.set("container.driver_cuda_version"_fact, *cuda, "branch of kernel module " + *driver);
  } else if (driver) {
    facts.set_unknown("container.driver_cuda_version"_fact, "driver branch " + driver->substr(0, driver->find('.')) +
                                                           " is not in gpudoctor's branch table", module_source);
  } else {
    const Fact* module = facts.find("kmod.nvidia.version"_fact);
    if (module && module->state == FactState::absent) {
      facts.set_absent("container.driver_cuda_version"_fact, module_source, "no NVIDIA kernel module loaded");
    } else {
      facts.set_unknown("container.driver_cuda_version"_fact, "the kernel module's version is not known", module_source);
    }
  }

  constexpr FactName fact = "container.require_cuda_unmet"_fact;
  std::string requirement;
  std::string source = "env:NVIDIA_REQUIRE_CUDA";
  if (env.disable_require && parse_go_bool(*env.disable_require)) {
    facts.set_absent(fact, "env:NVIDIA_DISABLE_REQUIRE", "NVIDIA_DISABLE_REQUIRE turns the check off");
    return;
  }
  if (env.require_cuda && !env.require_cuda->empty()) {
    requirement = *env.require_cuda;
  } else if (env.cuda_version && !env.cuda_version->empty()) {
    // A "legacy" CUDA image: CUDA_VERSION without NVIDIA_REQUIRE_CUDA asks for cuda>=major.minor.
    auto version = major_minor(*env.cuda_version);
    if (!version) {
      facts.set_absent(fact, "env:CUDA_VERSION", "CUDA_VERSION is not a version");
      return;
    }
    requirement = "cuda>=" + *version;
    source = "env:CUDA_VERSION (legacy image: " + requirement + ")";
  } else {
    facts.set_absent(fact, source, "NVIDIA_REQUIRE_CUDA is not set");
    return;
  }
  if (!driver) {
    facts.set_unknown(fact, "the kernel module's version is not known", source);
    return;
  }
  RequireProperties properties;
  properties.driver = driver;
  properties.cuda = cuda;
  RequireResult result = evaluate_requirement(requirement, properties);
  switch (result.met) {
    case RequireTruth::yes:
      facts.set_absent(fact, source, fmt::format("met by driver {} (CUDA {})", *driver, cuda.value_or("?")));
      break;
    case RequireTruth::no:
      facts.set(fact, result.failing, source);
      break;
    case RequireTruth::unknown:
      if (!result.error.empty()) {
        facts.set_unknown(fact, "'" + result.error + "' is not PROPERTY OPERATOR VALUE", source);
      } else if (!cuda && result.undecided.find("cuda") != std::string::npos) {
        facts.set_unknown(fact, "the CUDA version of driver " + *driver + " is not in gpudoctor's branch table", source);
      } else {
        facts.set_unknown(fact, "met only if the GPU's " + result.undecided + " matches, which gpudoctor does not read",
                          source);
      }
      break;
  }
}

void set_visible_devices_facts(Host& host, FactSet& facts) {
  const std::string source = "env:CUDA_VISIBLE_DEVICES";
  std::optional<std::string> value = host.env("CUDA_VISIBLE_DEVICES");
  if (!value) {
    facts.set_absent("container.cuda_visible_devices_malformed"_fact, source, "CUDA_VISIBLE_DEVICES is not set");
    facts.set_absent("container.cuda_visible_devices_absent"_fact, source, "CUDA_VISIBLE_DEVICES is not set");
    return;
  }
  if (auto bad = malformed_visible_device(*value)) {
    facts.set("container.cuda_visible_devices_malformed"_fact, *bad, source);
  } else {
    facts.set_absent("container.cuda_visible_devices_malformed"_fact, source);
  }
  std::optional<std::int64_t> count = facts.get_int("dev.gpu_count"_fact);
  if (!count) {
    const Fact* fact = facts.find("dev.gpu_count"_fact);
    std::string reason = fact && fact->state == FactState::unknown ? fact->reason : "the driver lists no GPUs";
    facts.set_unknown("container.cuda_visible_devices_absent"_fact, reason, source);
    return;
  }
  std::vector<std::string> uuids;
  if (const Fact* fact = facts.find("dev.gpu_uuids"_fact); fact && fact->state == FactState::present) {
    uuids = std::get<std::vector<std::string>>(fact->value);
  }
  if (auto absent = absent_visible_device(*value, static_cast<long>(*count), uuids)) {
    facts.set("container.cuda_visible_devices_absent"_fact, *absent, source + ", /proc/driver/nvidia/gpus");
  } else {
    facts.set_absent("container.cuda_visible_devices_absent"_fact, source + ", /proc/driver/nvidia/gpus");
  }
}

}  // namespace

void record_nvidia_container_env(Host& host, FactSet& facts) {
  NvidiaEnv env = set_env_facts(host, facts);
  facts.set("container.missing_driver_capabilities"_fact, missing_capabilities(env.driver_capabilities),
            "env:NVIDIA_DRIVER_CAPABILITIES");
  set_require_facts(env, facts);
  set_visible_devices_facts(host, facts);
}

}  // namespace gd
