// The overview line of the RDMA layer (probes/rdma).

#include "probes/rdma/rdma_overview.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd::areas {
namespace {

/// "InfiniBand 400 Gb/sec": the active ports' link layers and rates, without the width and speed
/// names ("(4X NDR)") that the facts keep.
std::string active_text(const FactSet& facts) {
  std::vector<std::string> rates;
  for (const std::string& rate : list_of(facts, "rdma.active_rates"_fact)) {
    std::string shown = rate.substr(0, rate.find(" ("));
    if (std::find(rates.begin(), rates.end(), shown) == rates.end()) rates.push_back(shown);
  }
  std::vector<std::string> parts;
  std::vector<std::string> layers = list_of(facts, "rdma.active_link_layers"_fact);
  const bool efa = facts.get_int("rdma.efa_device_count"_fact).value_or(0) > 0;
  for (std::string& layer : layers) {
    if (layer == "Ethernet") layer = "RoCE";
    // The efa driver reports no link layer (sysfs prints "Unknown"): name the adapter instead.
    if (layer == "Unknown" && efa) layer = "EFA";
  }
  if (!layers.empty()) parts.push_back(fmt::format("{}", fmt::join(layers, "/")));
  if (!rates.empty()) parts.push_back(fmt::format("{}", fmt::join(rates, ", ")));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string gpudirect_text(const FactSet& facts) {
  if (auto provider = facts.get_string("rdma.gpudirect.provider"_fact)) return "GPUDirect via " + *provider;
  const Fact* fact = facts.find("rdma.gpudirect.provider"_fact);
  if (fact && fact->state == FactState::absent) return "no GPUDirect RDMA provider";
  return "GPUDirect unknown";
}

}  // namespace

AreaLine rdma_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_preflight(facts)) {
    line.summary = "not read: the target host's HCAs (pre-flight)";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto hcas = facts.get_int("rdma.hca_count"_fact);
  if (!hcas) {
    line.summary = "unknown: " + unknown_reason(facts, "rdma.hca_count"_fact);
    line.status = status_for(findings, layer, AreaStatus::unknown);
    return line;
  }
  if (*hcas == 0) {
    line.summary = "none";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  std::vector<std::string> parts;
  auto active = facts.get_int("rdma.active_port_count"_fact).value_or(0);
  auto down = facts.get_int("rdma.down_port_count"_fact).value_or(0);
  std::string hca_text = plural(*hcas, "HCA");
  if (active > 0 && down == 0) {
    std::string shown = active_text(facts);
    hca_text += shown.empty() ? " active" : " active (" + shown + ")";
  }
  parts.push_back(hca_text);
  if (down > 0) parts.push_back(fmt::format("{} down", plural(down, "port")));
  if (active == 0 && down == 0) parts.push_back("port states unknown");
  auto uverbs = facts.get_int("limits.rdma.uverbs_count"_fact);
  if (facts.get_bool("container.in_container"_fact) == true && uverbs == 0) {
    parts.push_back("no /dev/infiniband/uverbs* in this container");
  }
  parts.push_back(gpudirect_text(facts));
  line.summary = fmt::format("{}", fmt::join(parts, ", "));
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
