#include "probes/nccl/net_routes.hpp"

#include <charconv>

#include <fmt/format.h>

#include "util/text_split.hpp"

namespace gd {
namespace {

template <typename T>
bool parse_number(std::string_view text, T& value, int base) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

RouteTable parse_proc_net_route(std::string_view text) {
  RouteTable table;
  bool header = true;
  for (std::string_view line : split_nonempty_lines(text)) {
    if (header) {  // "Iface\tDestination\tGateway ..."
      header = false;
      if (line.starts_with("Iface")) continue;
    }
    if (table.routes.size() >= k_max_routes) break;
    auto fields = split_words(trim_whitespace(line));
    Ipv4Route route;
    if (fields.size() < 8 || !parse_number(fields[1], route.destination, 16) || !parse_number(fields[3], route.flags, 16) ||
        !parse_number(fields[6], route.metric, 10) || !parse_number(fields[7], route.mask, 16)) {
      ++table.malformed;
      continue;
    }
    route.interface = std::string(fields[0]);
    table.routes.push_back(std::move(route));
  }
  return table;
}

std::string route_prefix_text(std::uint32_t destination, std::uint32_t mask) {
  // The kernel prints the network-order address as a u32 on a little-endian host: the first
  // byte of the address is the lowest byte of the number (0100A8C0 is 192.168.0.1).
  auto dotted = [](std::uint32_t v) {
    return fmt::format("{}.{}.{}.{}", v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff);
  };
  return dotted(destination) + "/" + dotted(mask);
}

}  // namespace gd
