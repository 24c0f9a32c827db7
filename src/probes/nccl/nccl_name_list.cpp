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
    entry = entry.substr(0, entry.find(':'));  // the port of "mlx5_0:1"
    if (!entry.empty()) list.names.emplace_back(entry);
  }
  return list;
}

bool entry_selects(const NcclNameList& list, std::string_view entry, std::string_view name) {
  return list.exact ? name == entry : name.starts_with(entry);
}

bool list_keeps(const NcclNameList& list, std::string_view name) {
  bool selected = false;
  for (const std::string& entry : list.names) selected = selected || entry_selects(list, entry, name);
  return list.exclude ? !selected : selected;
}

}  // namespace gd
