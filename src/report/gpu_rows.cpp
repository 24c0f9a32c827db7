#include "report/gpu_rows.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

namespace gd {
namespace {

/// The N of every fact named "<prefix>N.<field>" that is present, with its string value,
/// in numeric order (the fact map sorts "10" before "2").
std::map<int, std::string> indexed(const FactSet& facts, std::string_view prefix, std::string_view field) {
  std::map<int, std::string> out;
  for (auto it = facts.all().lower_bound(prefix); it != facts.all().end() && it->first.starts_with(prefix); ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    std::size_t dot = rest.find('.');
    if (dot == std::string_view::npos || rest.substr(dot + 1) != field) continue;
    int n = -1;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + dot, n);
    if (ec != std::errc{} || end != rest.data() + dot || n < 0) continue;
    const auto* text = std::get_if<std::string>(&it->second.value);
    if (it->second.state == FactState::present && text) out[n] = *text;
  }
  return out;
}


}  // namespace


std::vector<GpuRow> gpu_rows(const FactSet& facts) {
  std::vector<GpuRow> rows;
  for (const auto& [n, bus] : indexed(facts, "pci.gpu.", "bus_id")) {
    GpuRow row;
    row.bus_id = normalize_bus_id(bus);
    row.pci = n;
    rows.push_back(row);
  }
  // A device joins the row with its bus id, else the row with its UUID, else gets its own.
  auto join = [&](std::string_view prefix, std::optional<int> GpuRow::*slot) {
    std::map<int, std::string> buses = indexed(facts, prefix, "pci_bus_id");
    std::map<int, std::string> uuids = indexed(facts, prefix, "uuid");
    std::map<int, bool> devices;
    for (const auto& [n, _] : buses) devices[n] = true;
    for (const auto& [n, _] : uuids) devices[n] = true;
    for (const auto& [n, _] : devices) {
      std::string bus = buses.contains(n) ? normalize_bus_id(buses[n]) : "";
      std::string uuid = uuids.contains(n) ? uuids[n] : "";
      auto row = std::find_if(rows.begin(), rows.end(), [&](const GpuRow& r) {
        if (r.*slot) return false;  // taken by another device of this layer
        return bus.empty() ? (!uuid.empty() && r.uuid == uuid) : r.bus_id == bus;
      });
      if (row == rows.end()) {
        rows.emplace_back();
        rows.back().bus_id = bus;
        row = rows.end() - 1;
      }
      (*row).*slot = n;
      if (row->uuid.empty()) row->uuid = uuid;
    }
  };
  join("cuda.device.", &GpuRow::cuda);
  join("nvml.device.", &GpuRow::nvml);
  return rows;
}

}  // namespace gd
