// The kernel module line: the nvidia module loaded, its version and flavour, its firmware.
#include "probes/driver/driver_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine driver_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_preflight(facts)) {
    line.summary = "target: driver " + facts.get_string("target.driver"_fact).value_or("?");
    if (auto cuda = facts.get_string("container.driver_cuda_version"_fact)) line.summary += " (CUDA " + *cuda + ")";
    line.summary += " (pre-flight: not read)";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto loaded = facts.get_bool("kmod.nvidia.loaded"_fact);
  if (!loaded) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "kmod.nvidia.loaded"_fact);
    return line;
  }
  if (!*loaded) {
    line.status = status_for(findings, layer, AreaStatus::warning);
    line.summary = "not loaded (no /proc/driver/nvidia)";
    return line;
  }
  line.summary = fmt::format("{} {}", facts.get_string("kmod.nvidia.flavor"_fact).value_or("?"),
                             facts.get_string("kmod.nvidia.version"_fact).value_or("(version unknown)"));
  if (auto uvm = facts.get_bool("kmod.nvidia_uvm.loaded"_fact)) {
    line.summary += *uvm ? ", nvidia_uvm loaded" : ", nvidia_uvm NOT loaded";
  }
  auto firmware = list_of(facts, "kmod.nvidia.gpu_firmware_versions"_fact);
  if (!firmware.empty()) {
    line.summary += fmt::format(", GSP firmware {}", fmt::join(firmware, "/"));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
