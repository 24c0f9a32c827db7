#include "util/pci_bus_id.hpp"

namespace gd {

std::string normalize_bus_id(std::string_view bus_id) {
  std::string out(bus_id);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  // An 8-digit domain whose upper half is zero, as NVML and CUDA write it.
  std::size_t colon = out.find(':');
  if (colon == 8 && out.starts_with("0000")) out.erase(0, 4);
  return out;
}

}  // namespace gd
