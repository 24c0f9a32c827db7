#include "probes/nccl/nccl_name_list.hpp"

#include "util/text_split.hpp"

namespace gd {

NcclNameList parse_nccl_name_list(std::string_view value) {
  NcclNameList list;
  if (value.starts_with('^')) {
    list.exclude = true;
    value.remove_prefix(1);
  }
  if (value.starts_with('=')) {
    list.exact = true;
    value.remove_prefix(1);
  }
  for (std::string_view entry : split_nonempty(value, ',')) {
    if (list.names.size() >= k_max_list_entries) break;
    std::size_t colon = entry.find(':');  // the port of "mlx5_0:1"
    std::string_view port = colon == std::string_view::npos ? std::string_view() : entry.substr(colon + 1);
    entry = entry.substr(0, colon);
    if (entry.empty()) continue;
    list.names.emplace_back(entry);
    // NCCL reads the port with atoi: anything but a number is port 0, which no HCA has.
    list.ports.push_back(colon == std::string_view::npos ? -1 : (!port.empty() && port.size() <= 3 && all_digits(port) ? std::stoi(std::string(port)) : 0));
  }
  return list;
}

bool entry_selects(const NcclNameList& list, std::string_view entry, std::string_view name) {
  return list.exact ? name == entry : name.starts_with(entry);
}

bool list_names_port(const NcclNameList& list, std::string_view device, int port) {
  if (list.exclude) return false;
  for (std::size_t i = 0; i < list.names.size(); ++i) {
    if (list.names[i] == device && (list.ports[i] == -1 || list.ports[i] == port)) return true;
  }
  return false;
}

bool list_keeps(const NcclNameList& list, std::string_view name) {
  bool selected = false;
  for (const std::string& entry : list.names) selected = selected || entry_selects(list, entry, name);
  return list.exclude ? !selected : selected;
}

}  // namespace gd
