// The device nodes line: /dev/nvidia* as a client finds them.
#include "probes/devices/devices_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine devices_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_preflight(facts)) {
    line.summary = "not read: the container runtime creates them on the target host (pre-flight)";
    line.status = status_for(findings, layer, AreaStatus::skipped);
    return line;
  }
  auto ctl = facts.get_string("dev.nvidiactl.state"_fact);
  auto uvm = facts.get_string("dev.uvm.state"_fact);
  if (!ctl && !uvm) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "dev.nvidiactl.state"_fact);
    return line;
  }
  std::string uvm_text = uvm.value_or("?");
  if (auto major = facts.get_int("dev.uvm.major"_fact)) {
    uvm_text += fmt::format(" (major {})", *major);
  }
  line.summary = fmt::format("nvidiactl {}, nvidia-uvm {}", ctl.value_or("?"), uvm_text);
  auto missing = list_of(facts, "dev.gpu_nodes_missing"_fact);
  auto denied = list_of(facts, "dev.gpu_nodes_denied"_fact);
  if (!missing.empty()) {
    line.summary += fmt::format(", missing {}", fmt::join(missing, " "));
  }
  if (!denied.empty()) {
    line.summary += fmt::format(", denied {}", fmt::join(denied, "; "));
  }
  // --root: the tree's nodes were checked with stat only.
  auto fine = [](const std::optional<std::string>& state) { return state == "ok" || state == "unopened"; };
  if (ctl == "unopened" || uvm == "unopened") line.summary += "; opening not tested (a --root tree's nodes are not opened)";
  bool all_ok = fine(ctl) && fine(uvm) && missing.empty() && denied.empty();
  line.status = status_for(findings, layer, all_ok ? AreaStatus::ok : AreaStatus::warning);
  return line;
}

}  // namespace gd::areas
