#include "fleet/fact_layers.hpp"

#include <algorithm>
#include <vector>

#include "core/all_layers.hpp"

namespace gd {
namespace {

// The layers that own facts, in the overview's order (core/all_layers.hpp), then "other" for the
// names this version does not know (a newer report's).
const std::vector<DiffLayer>& layers() {
  static const std::vector<DiffLayer> out = [] {
    std::vector<DiffLayer> list;
    for (const Layer& layer : all_layers()) {
      if (layer.fact_prefixes.size() > 0) list.push_back({layer.id, layer.title});
    }
    list.push_back({"other", "Other"});
    return list;
  }();
  return out;
}

// Facts that differ between any two runs or nodes and say nothing about health: left out of a
// diff unless -v. Each names a catalogued fact (tests/unit/fleet/test_fact_layers.cpp checks it).
constexpr VolatileFact k_volatile[] = {
    {"host.name", "the node's own name: it is what tells the two apart"},
    {"cuda.helper.duration_ms", "timing"},
    {"cuda.helper.work_ms", "timing"},
    {"cuda.helper.timeline", "timings of each helper step"},
    {"cuda.init.duration_ms", "timing"},
    {"cuda.device.*.timeline", "timings of each step of a GPU's proof"},
    {"cuda.device.*.module.jit_ms", "timing"},
    {"cuda.device.*.kernel.ms", "timing"},
    {"torch.fatbin_scan_ms", "timing"},
    {"cuda.device.*.uuid", "GPU UUID: unique to each GPU"},
    {"nvml.device.*.uuid", "GPU UUID: unique to each GPU"},
    {"dev.gpu_uuids", "GPU UUIDs: unique to each GPU"},
    {"nvml.device.*.process_pids", "process ids"},
    {"nvml.device.*.processes", "how many processes use the GPU: changes with every job"},
    {"cgroup.path", "the cgroup holds the job's or container's id"},
    {"klog.lines", "grows with the kernel log"},
    {"klog.nvrm_lines", "kernel log lines: timestamps, serial numbers"},
};

std::size_t layer_index(std::string_view id) {
  const auto& list = layers();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].id == id) return i;
  }
  return list.size() - 1;
}

}  // namespace

std::span<const DiffLayer> diff_layers() { return layers(); }

std::size_t diff_layer_of(std::string_view fact) {
  const Layer* layer = layer_of_fact(fact);
  return layer_index(layer ? layer->id : std::string_view("other"));
}

std::span<const VolatileFact> volatile_facts() { return k_volatile; }

bool fact_matches(std::string_view pattern, std::string_view fact) {
  while (true) {
    std::size_t p_end = pattern.find('.');
    std::size_t f_end = fact.find('.');
    std::string_view p = pattern.substr(0, p_end);
    std::string_view f = fact.substr(0, f_end);
    if (p != "*" ? p != f : f.empty()) return false;
    if (p_end == std::string_view::npos || f_end == std::string_view::npos) {
      return p_end == std::string_view::npos && f_end == std::string_view::npos;
    }
    pattern.remove_prefix(p_end + 1);
    fact.remove_prefix(f_end + 1);
  }
}

bool is_volatile_fact(std::string_view fact) {
  return std::any_of(std::begin(k_volatile), std::end(k_volatile),
                     [&](const VolatileFact& v) { return fact_matches(v.pattern, fact); });
}

}  // namespace gd
