#include "probes/nccl/nccl_env_check.hpp"

#include <charconv>

#include "util/text_split.hpp"

namespace gd {

std::vector<std::string> unmatched_interfaces(const NcclNameList& list, const std::vector<NetInterface>& interfaces) {
  std::vector<std::string> out;
  if (list.exclude) return out;
  for (const std::string& entry : list.names) {
    std::vector<std::string> down;
    bool up = false;
    for (const NetInterface& interface : interfaces) {
      if (!entry_selects(list, entry, interface.name)) continue;
      if (interface.up) {
        up = true;
      } else {
        down.push_back(interface_text(interface));
      }
    }
    if (up) continue;
    if (down.empty()) {
      out.push_back(entry + ": no such interface");
    } else {
      std::string text = entry + ": down (";
      for (std::size_t i = 0; i < down.size(); ++i) text += (i ? ", " : "") + down[i];
      out.push_back(text + ")");
    }
  }
  return out;
}

std::vector<std::string> matched_interfaces(const NcclNameList& list, const std::vector<NetInterface>& interfaces) {
  std::vector<std::string> out;
  for (const NetInterface& interface : interfaces) {
    if (list_keeps(list, interface.name)) out.push_back(interface_text(interface));
  }
  return out;
}

std::vector<std::string> unmatched_devices(const NcclNameList& list, const std::vector<std::string>& devices) {
  std::vector<std::string> out;
  if (list.exclude) return out;
  for (const std::string& entry : list.names) {
    bool found = false;
    for (const std::string& device : devices) found = found || entry_selects(list, entry, device);
    if (!found) out.push_back(entry + ": no such device");
  }
  return out;
}

bool nccl_flag_set(std::string_view value) {
  value = trim_whitespace(value);
  long long number = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  return error == std::errc() && end != value.data() && number != 0;
}

std::vector<std::string> disabled_transports(const NcclSwitches& switches) {
  // What each costs, after the descriptions of NCCL's environment-variable page.
  std::vector<std::string> out;
  if (switches.p2p_disable && nccl_flag_set(*switches.p2p_disable)) {
    out.push_back("NCCL_P2P_DISABLE=" + *switches.p2p_disable +
                  " (GPUs of this node stop reaching each other directly over NVLink or PCIe: their data goes "
                  "through host memory or the network)");
  }
  if (switches.shm_disable && nccl_flag_set(*switches.shm_disable)) {
    out.push_back("NCCL_SHM_DISABLE=" + *switches.shm_disable +
                  " (no shared-memory transport: where peer-to-peer is not possible, GPUs of this node talk "
                  "through the network)");
  }
  if (switches.ib_disable && nccl_flag_set(*switches.ib_disable)) {
    out.push_back("NCCL_IB_DISABLE=" + *switches.ib_disable +
                  " (no InfiniBand or RoCE: traffic between nodes goes over IP sockets)");
  }
  if (switches.nvls_enable && !nccl_flag_set(*switches.nvls_enable) && !trim_whitespace(*switches.nvls_enable).empty()) {
    out.push_back("NCCL_NVLS_ENABLE=" + *switches.nvls_enable +
                  " (no NVLink SHARP: on NVSwitch systems reductions are no longer done in the switches)");
  }
  if (switches.p2p_level && !trim_whitespace(*switches.p2p_level).empty()) {
    out.push_back("NCCL_P2P_LEVEL=" + *switches.p2p_level +
                  " (peer-to-peer only between GPUs this close in the topology: farther pairs go through the host)");
  }
  return out;
}

bool nccl_may_use_interface(const std::optional<NcclNameList>& socket_ifname, std::string_view name) {
  if (socket_ifname) return list_keeps(*socket_ifname, name);
  return !name.starts_with("docker") && !name.starts_with("lo");
}

}  // namespace gd
