// The PCI line: the NVIDIA GPUs and NVSwitches on the bus, one detail per GPU.
#include "probes/pci/pci_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine pci_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_preflight(facts)) {
    line.summary = "target: " + *facts.get_string("target.gpu"_fact) + " (pre-flight: not read)";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto count = facts.get_int("pci.nvidia_gpu_count"_fact);
  if (!count) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "pci.nvidia_gpu_count"_fact);
    return line;
  }
  line.summary = plural(*count, "GPU");
  auto architectures = list_of(facts, "pci.architectures"_fact);
  if (!architectures.empty()) {
    line.summary += fmt::format(" ({})", fmt::join(architectures, ", "));
  }
  if (auto switches = facts.get_int("pci.nvswitch_count"_fact); switches && *switches > 0) {
    line.summary += ", " + plural(*switches, "NVSwitch");
  }
  line.details = list_of(facts, "pci.gpus"_fact);
  line.status = status_for(findings, layer, *count > 0 ? AreaStatus::ok : AreaStatus::warning);
  return line;
}

}  // namespace gd::areas
