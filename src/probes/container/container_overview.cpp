// The container line: whether the run is in a container or VM, and what it was given.
#include "probes/container/container_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine container_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_preflight(facts)) {
    line.summary = "the image, in a container the target's runtime starts (pre-flight)";
    if (auto visible = facts.get_string("env.nvidia_visible_devices"_fact)) line.summary += ", NVIDIA_VISIBLE_DEVICES=" + *visible;
    if (auto caps = facts.get_string("env.nvidia_driver_capabilities"_fact)) line.summary += ", NVIDIA_DRIVER_CAPABILITIES=" + *caps;
    if (auto require = facts.get_string("env.nvidia_require_cuda"_fact)) line.summary += ", NVIDIA_REQUIRE_CUDA=" + *require;
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto runtime = facts.get_string("container.runtime"_fact);
  auto cgroup = facts.get_string("cgroup.version"_fact);
  auto hypervisor = facts.get_string("virt.hypervisor"_fact);
  if (!runtime && !cgroup && !hypervisor) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "container.runtime"_fact);
    return line;
  }
  std::vector<std::string> parts;
  parts.push_back(runtime && *runtime != "none" ? *runtime + " container" : "not in a container");
  if (facts.get_bool("virt.is_vm"_fact) == true) {
    parts.push_back(hypervisor && *hypervisor != "none" && *hypervisor != "unknown" ? "VM (" + *hypervisor + ")" : "in a VM");
  }
  if (cgroup) {
    parts.push_back("cgroup " + *cgroup);
  }
  if (auto visible = facts.get_string("env.nvidia_visible_devices"_fact)) {
    parts.push_back("NVIDIA_VISIBLE_DEVICES=" + *visible);
  }
  line.summary = fmt::format("{}", fmt::join(parts, ", "));
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
