#include "probes/nccl/net_interfaces.hpp"

#include <charconv>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::string_view k_net_class = "/sys/class/net";
constexpr std::size_t k_max_attribute = 64;  // "lowerlayerdown\n", "0x11003\n"
constexpr unsigned long k_iff_up = 0x1;

}  // namespace

std::optional<unsigned long> parse_interface_flags(std::string_view text) {
  text = trim_whitespace(text);
  if (!text.starts_with("0x")) return std::nullopt;
  text.remove_prefix(2);
  unsigned long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

bool interface_is_up(std::string_view operstate, std::optional<unsigned long> flags) {
  if (operstate == "up") return true;
  return operstate == "unknown" && flags && (*flags & k_iff_up) != 0;
}

std::string interface_text(const NetInterface& interface) {
  if (interface.up && interface.operstate != "up") return interface.name + " up (operstate " + interface.operstate + ", IFF_UP)";
  return interface.name + " " + (interface.up ? std::string("up") : interface.operstate);
}

IoResult<std::vector<NetInterface>> read_net_interfaces(Host& host) {
  auto names = host.list_dir(k_net_class);
  if (!names) return std::unexpected(names.error());
  std::vector<NetInterface> interfaces;
  for (const std::string& name : *names) {
    if (interfaces.size() >= k_max_interfaces) break;
    const std::string folder = std::string(k_net_class) + "/" + name;
    NetInterface interface;
    interface.name = name;
    auto state = host.read_file(folder + "/operstate", k_max_attribute);
    interface.operstate = state ? std::string(trim_whitespace(*state)) : "?";
    if (interface.operstate.empty()) interface.operstate = "?";
    std::optional<unsigned long> flags;
    if (interface.operstate == "unknown") {
      if (auto text = host.read_file(folder + "/flags", k_max_attribute)) flags = parse_interface_flags(*text);
    }
    interface.up = interface_is_up(interface.operstate, flags);
    interfaces.push_back(std::move(interface));
  }
  return interfaces;
}

}  // namespace gd
