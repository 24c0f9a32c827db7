// The kernel log line: the NVIDIA driver's messages (Xid, RmInitAdapter, ...).
#include "probes/kernel_log/kernel_log_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {

AreaLine kernel_log_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_preflight(facts)) {
    line.summary = "not read: the target host's (pre-flight)";
    line.status = status_for(findings, layer, AreaStatus::skipped);
    return line;
  }
  auto readable = facts.get_bool("klog.readable"_fact);
  auto trust = facts.get_string("klog.source_trust"_fact);
  if (readable != true) {
    line.status = status_for(findings, layer, AreaStatus::skipped);
    // A syslog file that others could have written was read but not believed.
    line.summary = trust && trust->starts_with("untrusted")
                       ? "not used: " + facts.get_string("klog.source"_fact).value_or("the syslog file") + " " + *trust
                       : "not read: " + unknown_reason(facts, "klog.readable"_fact);
    return line;
  }
  auto xids = list_of(facts, "klog.xid_codes"_fact);
  auto rm = list_of(facts, "klog.rm_init_adapter"_fact);
  std::vector<std::string> parts;
  if (!xids.empty()) {
    parts.push_back(fmt::format("Xid {}", fmt::join(xids, ", ")));
  }
  if (!rm.empty()) {
    parts.push_back(fmt::format("RmInitAdapter failed {}", fmt::join(rm, ", ")));
  }
  // Messages no Xid or RmInitAdapter count covers (API mismatch, a refused module signature) are
  // named by the findings that read them, also where another finding explains them.
  std::vector<std::string> found;
  for (const Finding& finding : findings) {
    if (answers_for(layer, finding.area)) found.push_back(finding.id);
    for (const std::string& consequence : finding.consequences) {
      if (is_layer_rule(layer, consequence)) found.push_back(consequence);  // klog.*, xid.*
    }
  }
  if (parts.empty() && !found.empty()) {
    parts.push_back(fmt::format("{}", fmt::join(found, ", ")));
  }
  line.summary = parts.empty() ? "no NVIDIA driver errors" : fmt::format("{}", fmt::join(parts, "; "));
  if (auto source = facts.get_string("klog.source"_fact)) {
    // How far a syslog file is believed (klog.source_trust); /dev/kmsg is the kernel's own.
    line.summary += " (" + *source + (trust && *trust != "kernel" ? "; " + *trust : "") + ")";
  }
  line.status = status_for(findings, layer, parts.empty() ? AreaStatus::ok : AreaStatus::warning);
  return line;
}

}  // namespace gd::areas
