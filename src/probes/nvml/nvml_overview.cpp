// The NVML line: what NVML says of each GPU's health.
#include "probes/nvml/nvml_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"

namespace gd::areas {
namespace {

/// "ECC on, 0 remapped rows, persistence on": what NVML says of the GPU's health, in short;
/// what it could not tell is left out (GeForce has no ECC, no remapper).
std::string health_summary(const FactSet& facts, std::int64_t i) {
  auto key = [i](FactField<"nvml.device.*."> field) { return field.at(i); };
  std::vector<std::string> parts;
  if (auto ecc = facts.get_bool(key("ecc.enabled"))) {
    std::string text = *ecc ? "ECC on" : "ECC off";
    if (auto pending = facts.get_bool(key("ecc.pending_enabled")); pending && *pending != *ecc) {
      text += *pending ? " (on after reboot)" : " (off after reboot)";
    }
    parts.push_back(text);
  }
  if (auto uncorrected = facts.get_int(key("ecc.uncorrected_volatile")); uncorrected && *uncorrected > 0) {
    parts.push_back(fmt::format("{} uncorrectable ECC errors", *uncorrected));
  }
  auto correctable = facts.get_int(key("remap.correctable"));
  auto uncorrectable = facts.get_int(key("remap.uncorrectable"));
  if (correctable && uncorrectable) {
    std::string text = fmt::format("{} remapped rows", *correctable + *uncorrectable);
    if (facts.get_bool(key("remap.pending")) == true) text += " (remapping pending)";
    if (facts.get_bool(key("remap.failure")) == true) text += " (a remapping FAILED)";
    parts.push_back(text);
  }
  if (auto action = facts.get_int(key("recovery_action")); action && *action != 0) {
    parts.push_back(fmt::format("recovery action {}", *action));
  }
  if (auto mode = facts.get_string(key("compute_mode")); mode && *mode != "Default") parts.push_back("compute mode " + *mode);
  if (facts.get_bool(key("mig.enabled")) == true) parts.push_back("MIG on");
  if (auto persistence = facts.get_bool(key("persistence"))) parts.push_back(*persistence ? "persistence on" : "persistence off");
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

AreaLine nvml_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto loaded = facts.get_bool("nvml.loaded"_fact);
  if (!loaded) {
    line.status = AreaStatus::skipped;
    line.summary = "not checked: " + unknown_reason(facts, "nvml.loaded"_fact);
    return line;
  }
  if (!*loaded) {
    line.status = status_for(findings, layer, AreaStatus::warning);
    line.summary = "libnvidia-ml.so.1 did not load: " + facts.get_string("nvml.dlerror"_fact).value_or("");
    return line;
  }
  auto init = facts.get_int("nvml.init.result"_fact);
  if (init && *init == 0) {
    auto count = facts.get_int("nvml.device_count"_fact).value_or(0);
    line.summary = fmt::format("driver {}, {} GPU{}", facts.get_string("nvml.driver_version"_fact).value_or("?"), count,
                               count == 1 ? "" : "s");
    for (std::int64_t i = 0; i < count && i < 1024; ++i) {
      auto key = [i](FactField<"nvml.device.*."> field) { return field.at(i); };
      std::string detail = fmt::format("GPU {}: {} · {}", i, facts.get_string(key("name")).value_or("?"),
                                       facts.get_string(key("pci_bus_id")).value_or("?"));
      std::string health = health_summary(facts, i);
      line.details.push_back(health.empty() ? detail : detail + " · " + health);
    }
    line.status = status_for(findings, layer, AreaStatus::ok);
  } else {
    line.summary = init ? fmt::format("nvmlInit failed: {} {}", *init, facts.get_string("nvml.init.text"_fact).value_or(""))
                        : "nvmlInit result unknown";
    line.status = status_for(findings, layer, AreaStatus::warning);
  }
  return line;
}

}  // namespace gd::areas
