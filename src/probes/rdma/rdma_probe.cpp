#include "probes/rdma/rdma_probe.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/rdma/gpudirect.hpp"
#include "probes/rdma/hca_scan.hpp"
#include "probes/rdma/nic_affinity.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

const std::string k_class_source(k_infiniband_class);

constexpr FactName k_port_facts[] = {
    "rdma.hca_count"_fact,        "rdma.hcas"_fact,          "rdma.port_count"_fact,          "rdma.active_port_count"_fact,
    "rdma.down_port_count"_fact,  "rdma.down_ports"_fact,    "rdma.active_link_layers"_fact,  "rdma.active_rates"_fact,
    "rdma.hca_drivers"_fact,      "rdma.unreadable"_fact,    "rdma.roce_v2_gids"_fact,        "rdma.ib_roce_active_port_count"_fact,
    "rdma.efa_device_count"_fact, "rdma.down_port_ids"_fact,
};

void add_distinct(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::string state_text(const HcaPort& port) {
  return fmt::format("{} {}", port.state ? port.state->name : std::string("state unknown"),
                     port.phys_state ? port.phys_state->name : std::string("physical state unknown"));
}

/// "mlx5_0 port 1: ACTIVE LinkUp InfiniBand 400 Gb/sec (4X NDR), fw 28.39.1002"
std::string port_line(const Hca& hca, const HcaPort& port) {
  std::string line = fmt::format("{} port {}: {} {}", hca.name, port.number, state_text(port), port.link_layer.value_or("link layer unknown"));
  if (port.rate) line += " " + *port.rate;
  if (hca.fw_ver) line += ", fw " + *hca.fw_ver;
  return line;
}

void set_port_facts(const HcaScan& scan, FactSet& facts) {
  std::vector<std::string> lines, down, down_ids, layers, rates, drivers, roce_gids;
  std::int64_t ports = 0, active = 0, ib_roce_active = 0, efa = 0;
  for (const Hca& hca : scan.hcas) {
    if (hca.driver) add_distinct(drivers, *hca.driver);
    if (hca.efa()) ++efa;
    if (hca.ports.empty()) lines.push_back(fmt::format("{}: no ports read", hca.name));
    for (const HcaPort& port : hca.ports) {
      lines.push_back(port_line(hca, port));
      if (port.state && port.phys_state) ++ports;
      if (port.active()) {
        ++active;
        if (port.link_layer == "InfiniBand" || port.roce()) ++ib_roce_active;
        if (port.link_layer) add_distinct(layers, *port.link_layer);
        if (port.rate) add_distinct(rates, *port.rate);
      } else if (port.down()) {
        down.push_back(fmt::format("{} port {}: {} ({})", hca.name, port.number, state_text(port), port.link_layer.value_or("link layer unknown")));
        down_ids.push_back(fmt::format("{}:{}", hca.name, port.number));
      }
      if (port.roce()) {
        std::vector<std::string> v2;
        for (const GidEntry& gid : port.gids) {
          if (gid.type == GidType::roce_v2) v2.push_back(std::to_string(gid.index));
        }
        roce_gids.push_back(fmt::format("{} port {}: {}", hca.name, port.number, v2.empty() ? std::string("none") : fmt::format("{}", fmt::join(v2, ", "))));
      }
    }
  }
  std::vector<std::string> unreadable = scan.unreadable;
  if (scan.cut) unreadable.push_back(fmt::format("{}: more than {} devices, the rest not read", k_class_source, k_max_hcas));
  facts.set("rdma.hca_count"_fact, static_cast<std::int64_t>(scan.hcas.size()), k_class_source);
  facts.set("rdma.hcas"_fact, std::move(lines), k_class_source);
  facts.set("rdma.port_count"_fact, ports, k_class_source + "/*/ports/*/state");
  facts.set("rdma.active_port_count"_fact, active, k_class_source + "/*/ports/*/state, phys_state");
  facts.set("rdma.ib_roce_active_port_count"_fact, ib_roce_active, k_class_source + "/*/ports/*/state, phys_state, link_layer");
  facts.set("rdma.efa_device_count"_fact, efa, k_class_source + "/*/device/driver");
  facts.set("rdma.down_port_count"_fact, static_cast<std::int64_t>(down.size()), k_class_source + "/*/ports/*/state, phys_state");
  facts.set("rdma.down_ports"_fact, std::move(down), k_class_source + "/*/ports/*/state, phys_state");
  facts.set("rdma.down_port_ids"_fact, std::move(down_ids), k_class_source + "/*/ports/*/state, phys_state");
  facts.set("rdma.active_link_layers"_fact, std::move(layers), k_class_source + "/*/ports/*/link_layer");
  facts.set("rdma.active_rates"_fact, std::move(rates), k_class_source + "/*/ports/*/rate");
  facts.set("rdma.hca_drivers"_fact, std::move(drivers), k_class_source + "/*/device/driver");
  facts.set("rdma.unreadable"_fact, std::move(unreadable), k_class_source);
  facts.set("rdma.roce_v2_gids"_fact, std::move(roce_gids), k_class_source + "/*/ports/*/gid_attrs/types");
}

bool module_loaded(Host& host, std::string_view name) {
  return static_cast<bool>(host.stat(fmt::format("/sys/module/{}", name)));
}

void set_gpudirect_facts(Host& host, const HcaScan& scan, FactSet& facts) {
  GpuDirectInputs inputs;
  inputs.nvidia_peermem = module_loaded(host, "nvidia_peermem");
  std::vector<std::string> peers;
  if (auto names = host.list_dir("/sys/kernel/mm/memory_peers")) {
    for (const std::string& name : *names) {
      if (peers.size() < 16) peers.push_back(name);
    }
  }
  // nv_peer_mem registers itself with MLNX_OFED's peer-memory API as "nv_mem".
  inputs.nv_peer_mem = module_loaded(host, "nv_peer_mem") || std::find(peers.begin(), peers.end(), "nv_mem") != peers.end();
  inputs.efa_nv_peermem = module_loaded(host, "efa_nv_peermem");
  inputs.module_flavor = facts.get_string("kmod.nvidia.flavor"_fact);
  if (auto release = facts.get_string("host.kernel_release"_fact)) inputs.kernel = parse_kernel_release(*release);
  for (const Hca& hca : scan.hcas) {
    if (hca.driver) add_distinct(inputs.hca_drivers, *hca.driver);
  }

  facts.set("rdma.gpudirect.nvidia_peermem"_fact, inputs.nvidia_peermem, "/sys/module/nvidia_peermem");
  facts.set("rdma.gpudirect.nv_peer_mem"_fact, inputs.nv_peer_mem, "/sys/module/nv_peer_mem, /sys/kernel/mm/memory_peers/nv_mem");
  facts.set("rdma.gpudirect.efa_nv_peermem"_fact, inputs.efa_nv_peermem, "/sys/module/efa_nv_peermem");
  facts.set("rdma.gpudirect.memory_peers"_fact, std::move(peers), "/sys/kernel/mm/memory_peers");
  const std::string dmabuf_source = "kmod.nvidia.flavor, host.kernel_release, rdma.hca_drivers";
  DmabufVerdict dmabuf = dmabuf_possible(inputs);
  if (scan.unknown_reason) dmabuf = {std::nullopt, "the HCAs are unknown: " + *scan.unknown_reason};
  if (dmabuf.possible) {
    facts.set("rdma.gpudirect.dmabuf_possible"_fact, *dmabuf.possible, dmabuf_source + ": " + dmabuf.why);
  } else {
    facts.set_unknown("rdma.gpudirect.dmabuf_possible"_fact, dmabuf.why, dmabuf_source);
  }

  auto provider = "rdma.gpudirect.provider"_fact;
  if (inputs.nvidia_peermem) {
    facts.set(provider, std::string("nvidia_peermem"), "/sys/module/nvidia_peermem");
  } else if (inputs.nv_peer_mem) {
    facts.set(provider, std::string("nv_peer_mem"), "/sys/module/nv_peer_mem, /sys/kernel/mm/memory_peers/nv_mem");
  } else if (inputs.efa_nv_peermem) {
    facts.set(provider, std::string("efa_nv_peermem"), "/sys/module/efa_nv_peermem");
  } else if (dmabuf.possible == true) {
    facts.set(provider, std::string("dma-buf"), dmabuf_source + " (no peer-memory module: NCCL registers GPU memory through dma-buf)");
  } else if (!dmabuf.possible) {
    facts.set_unknown(provider, "no peer-memory module loaded, and whether the dma-buf path works is unknown: " + dmabuf.why, dmabuf_source);
  } else {
    facts.set_absent(provider, "/sys/module, " + dmabuf_source, "no nvidia_peermem, nv_peer_mem or efa_nv_peermem module loaded, and no dma-buf path: " + dmabuf.why);
  }
}

/// NCCL_IB_GID_INDEX against each active RoCE port's GID table.
void set_gid_index_facts(Host& host, const HcaScan& scan, FactSet& facts) {
  const std::string source = "env.nccl_ib_gid_index, " + k_class_source + "/*/ports/*/gids";
  auto count = "rdma.nccl_gid_index_problem_count"_fact;
  auto list = "rdma.nccl_gid_index_problems"_fact;
  auto value = facts.get_string("env.nccl_ib_gid_index"_fact);
  if (!value) {
    facts.set_absent(count, source, "NCCL_IB_GID_INDEX is not set: NCCL picks the index itself");
    facts.set_absent(list, source, "NCCL_IB_GID_INDEX is not set");
    return;
  }
  std::string_view text = trim_whitespace(*value);
  int index = 0;
  bool negative = text.starts_with('-');
  std::string_view digits = negative ? text.substr(1) : text;
  bool number = !digits.empty() && digits.size() <= 5 && all_digits(digits);
  if (number) std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (number && negative) {
    facts.set_absent(count, source, "NCCL_IB_GID_INDEX is negative: NCCL picks the index itself");
    facts.set_absent(list, source, "NCCL_IB_GID_INDEX is negative");
    return;
  }
  if (scan.unknown_reason) {
    facts.set_unknown(count, "the HCAs are unknown: " + *scan.unknown_reason, source);
    facts.set_unknown(list, "the HCAs are unknown: " + *scan.unknown_reason, source);
    return;
  }
  std::vector<std::string> problems;
  for (const Hca& hca : scan.hcas) {
    for (const HcaPort& port : hca.ports) {
      if (!port.roce() || !port.active()) continue;
      std::string where = fmt::format("{} port {}", hca.name, port.number);
      if (!number) {
        problems.push_back(fmt::format("{}: NCCL_IB_GID_INDEX '{}' is not an index", where, text.substr(0, 20)));
        continue;
      }
      GidLookup gid = read_gid(host, port, index);
      if (gid.missing) {
        problems.push_back(fmt::format("{}: GID {} does not exist (the table is shorter)", where, index));
      } else if (gid.empty) {
        problems.push_back(fmt::format("{}: GID {} is empty", where, index));
      } else if (gid.type == GidType::ib_roce_v1) {
        problems.push_back(fmt::format("{}: GID {} is IB/RoCE v1", where, index));
      }
      // An entry that could not be read says nothing either way.
    }
  }
  facts.set(count, static_cast<std::int64_t>(problems.size()), source);
  facts.set(list, std::move(problems), source);
}

}  // namespace

void probe_rdma(Host& host, const ProbeOptions&, FactSet& facts) {
  HcaScan scan = scan_hcas(host);
  if (scan.unknown_reason) {
    for (FactName name : k_port_facts) facts.set_unknown(name, *scan.unknown_reason, k_class_source);
  } else {
    set_port_facts(scan, facts);
  }
  set_gpudirect_facts(host, scan, facts);
  set_gid_index_facts(host, scan, facts);
  set_nic_affinity_facts(host, scan, facts);
}

}  // namespace gd
