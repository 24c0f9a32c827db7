#include "probes/nccl/nccl_env_check.hpp"
#include "probes/nccl/nccl_name_list.hpp"
#include "probes/nccl/net_interfaces.hpp"
#include "probes/nccl/net_routes.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace GD_UNITY_ID {

namespace {

/// A line as fib_route_seq_show prints it: the fields, then blanks to 127 characters.
std::string route_line(std::string_view fields) {
  std::string line(fields);
  line.resize(127, ' ');
  return line + "\n";
}

// The header the kernel prints (net/ipv4/fib_trie.c), padded like every line.
const std::string k_route_header = route_line("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT");

// NVIDIA/nccl#1581's node: eno1 and enp37s0f0 each with a link route to 192.168.0.0/20, a
// default route through eno1, docker0's own subnet.
const std::string k_duplicate_routes = k_route_header +
    route_line("eno1\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0") +
    route_line("eno1\t0000A8C0\t00000000\t0001\t0\t0\t100\t00F0FFFF\t0\t0\t0") +
    route_line("enp37s0f0\t0000A8C0\t00000000\t0001\t0\t0\t101\t00F0FFFF\t0\t0\t0") +
    route_line("docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0");

std::vector<gd::NetInterface> interfaces() {
  return {{"docker0", "down", false}, {"eth0", "up", true}, {"eth1", "down", false}, {"ib0", "up", true}, {"lo", "unknown", true}};
}

}  // namespace

TEST_CASE("nccl name lists: NCCL's syntax", "[nccl][env]") {
  gd::NcclNameList plain = gd::parse_nccl_name_list("eth,ib");
  CHECK_FALSE(plain.exclude);
  CHECK_FALSE(plain.exact);
  CHECK(plain.names == std::vector<std::string>{"eth", "ib"});
  CHECK(gd::list_keeps(plain, "eth0"));
  CHECK_FALSE(gd::list_keeps(plain, "ens1f0"));

  gd::NcclNameList exact = gd::parse_nccl_name_list("=eth0,eth1");
  CHECK(exact.exact);
  CHECK(gd::list_keeps(exact, "eth0"));
  CHECK_FALSE(gd::list_keeps(exact, "eth01"));

  gd::NcclNameList exclude = gd::parse_nccl_name_list("^=docker0,lo");
  CHECK(exclude.exclude);
  CHECK(exclude.exact);
  CHECK_FALSE(gd::list_keeps(exclude, "docker0"));
  CHECK(gd::list_keeps(exclude, "docker1"));

  gd::NcclNameList hcas = gd::parse_nccl_name_list("mlx5_0:1,mlx5_1:1,,");
  CHECK(hcas.names == std::vector<std::string>{"mlx5_0", "mlx5_1"});
  CHECK(hcas.ports == std::vector<int>{1, 1});
  // Ports as NCCL's matchIfList compares them: an entry without one selects every port.
  gd::NcclNameList mixed = gd::parse_nccl_name_list("mlx5_0:1,mlx5_2");
  CHECK(mixed.ports == std::vector<int>{1, -1});
  CHECK(gd::list_names_port(mixed, "mlx5_0", 1));
  CHECK_FALSE(gd::list_names_port(mixed, "mlx5_0", 2));
  CHECK(gd::list_names_port(mixed, "mlx5_2", 2));
  CHECK_FALSE(gd::list_names_port(mixed, "mlx5_20", 1));  // selected by the prefix mlx5_2, but not named
  CHECK_FALSE(gd::list_names_port(gd::parse_nccl_name_list("=mlx5_2"), "mlx5_20", 1));
  CHECK(gd::list_names_port(gd::parse_nccl_name_list("=mlx5_2"), "mlx5_2", 1));
  CHECK_FALSE(gd::list_names_port(gd::parse_nccl_name_list("^mlx5_3"), "mlx5_3", 1));  // exclusion: none named
  CHECK(gd::parse_nccl_name_list(std::string(100000, ',') + "eth0").names == std::vector<std::string>{"eth0"});
}

TEST_CASE("nccl interfaces: operstate and IFF_UP", "[nccl][env]") {
  CHECK(gd::parse_interface_flags("0x1003\n") == 0x1003);
  CHECK(gd::parse_interface_flags("0x9") == 0x9);
  CHECK_FALSE(gd::parse_interface_flags("1003"));
  CHECK_FALSE(gd::parse_interface_flags("0xzz"));
  CHECK(gd::interface_is_up("up", std::nullopt));
  CHECK_FALSE(gd::interface_is_up("down", 0x1003));
  CHECK_FALSE(gd::interface_is_up("lowerlayerdown", std::nullopt));
  CHECK(gd::interface_is_up("unknown", 0x9));        // lo: IFF_UP | IFF_LOOPBACK
  CHECK_FALSE(gd::interface_is_up("unknown", 0x1002));  // a tun left down
  CHECK_FALSE(gd::interface_is_up("unknown", std::nullopt));
}

TEST_CASE("nccl NCCL_SOCKET_IFNAME against the interfaces", "[nccl][env]") {
  CHECK(gd::unmatched_interfaces(gd::parse_nccl_name_list("eth"), interfaces()).empty());  // eth0 is up
  CHECK(gd::unmatched_interfaces(gd::parse_nccl_name_list("=eth2"), interfaces()) ==
        std::vector<std::string>{"eth2: no such interface"});
  CHECK(gd::unmatched_interfaces(gd::parse_nccl_name_list("=eth1,ib0"), interfaces()) ==
        std::vector<std::string>{"eth1: down (eth1 down)"});
  // '=' applies to every entry: "ib" is then a name, which no interface has.
  CHECK(gd::unmatched_interfaces(gd::parse_nccl_name_list("=ib"), interfaces()) == std::vector<std::string>{"ib: no such interface"});
  CHECK(gd::unmatched_interfaces(gd::parse_nccl_name_list("^eth"), interfaces()).empty());
  CHECK(gd::matched_interfaces(gd::parse_nccl_name_list("=eth0"), interfaces()) == std::vector<std::string>{"eth0 up"});
  CHECK(gd::unmatched_devices(gd::parse_nccl_name_list("mlx5_0:1,mlx5_4:1"), {"mlx5_0", "mlx5_1"}) ==
        std::vector<std::string>{"mlx5_4: no such device"});
}

TEST_CASE("nccl transports: what each variable turns off", "[nccl][env]") {
  CHECK(gd::nccl_flag_set("1"));
  CHECK(gd::nccl_flag_set(" 2 "));
  CHECK_FALSE(gd::nccl_flag_set("0"));
  CHECK_FALSE(gd::nccl_flag_set(""));
  CHECK_FALSE(gd::nccl_flag_set("yes"));  // strtoll reads 0
  gd::NcclSwitches none;
  none.p2p_disable = "0";
  none.nvls_enable = "1";
  CHECK(gd::disabled_transports(none).empty());
  gd::NcclSwitches some;
  some.p2p_disable = "1";
  some.shm_disable = "1";
  some.nvls_enable = "0";
  auto texts = gd::disabled_transports(some);
  REQUIRE(texts.size() == 3);
  CHECK(texts[0].starts_with("NCCL_P2P_DISABLE=1 ("));
  CHECK(texts[1].starts_with("NCCL_SHM_DISABLE=1 ("));
  CHECK(texts[2].starts_with("NCCL_NVLS_ENABLE=0 ("));
}

TEST_CASE("nccl routes: /proc/net/route as the kernel prints it", "[nccl][routes]") {
  gd::RouteTable table = gd::parse_proc_net_route(k_duplicate_routes);
  CHECK(table.malformed == 0);
  REQUIRE(table.routes.size() == 4);
  CHECK(table.routes[1].interface == "eno1");
  CHECK(gd::route_prefix_text(table.routes[1].destination, table.routes[1].mask) == "192.168.0.0/255.255.240.0");
  CHECK(table.routes[0].flags == 0x3);
  CHECK(table.routes[2].metric == 101);

  auto all = [](std::string_view name) { return gd::nccl_may_use_interface(std::nullopt, name); };
  CHECK(gd::duplicate_destinations(table, all) == std::vector<std::string>{"192.168.0.0/255.255.240.0 via eno1, enp37s0f0"});
  // NCCL_SOCKET_IFNAME==eno1 does not help: the kernel may still route to 192.168.0.0/20 through
  // enp37s0f0 (NVIDIA/nccl#1581 had it set).
  std::optional<gd::NcclNameList> only_eno1 = gd::parse_nccl_name_list("=eno1");
  auto eno1 = [&](std::string_view name) { return gd::nccl_may_use_interface(only_eno1, name); };
  CHECK(gd::duplicate_destinations(table, eno1) == std::vector<std::string>{"192.168.0.0/255.255.240.0 via eno1, enp37s0f0"});
  // Neither is one NCCL uses (NCCL_SOCKET_IFNAME==ib0): not its problem.
  std::optional<gd::NcclNameList> only_ib0 = gd::parse_nccl_name_list("=ib0");
  auto ib0 = [&](std::string_view name) { return gd::nccl_may_use_interface(only_ib0, name); };
  CHECK(gd::duplicate_destinations(table, ib0).empty());
}

TEST_CASE("nccl routes: default routes, and twins among interfaces NCCL never uses, are no duplicate", "[nccl][routes]") {
  std::string text = k_route_header + route_line("eth0\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0") +
                     route_line("eth1\t00000000\t0101A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0") +
                     route_line("eth0\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0") +
                     route_line("docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0") +
                     route_line("docker1\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0");
  auto all = [](std::string_view name) { return gd::nccl_may_use_interface(std::nullopt, name); };
  CHECK(gd::duplicate_destinations(gd::parse_proc_net_route(text), all).empty());
}

TEST_CASE("nccl routes: garbage and a huge table stay bounded", "[nccl][routes][hostile]") {
  gd::RouteTable garbage = gd::parse_proc_net_route("Iface\tDestination\nnot a route\n\x01\x02\x03\neth0\tzz\n");
  CHECK(garbage.routes.empty());
  CHECK(garbage.malformed == 3);
  std::string huge = k_route_header;
  const std::string line = route_line("eth0\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0");
  for (std::size_t i = 0; i < gd::k_max_routes + 10; ++i) huge += line;
  CHECK(gd::parse_proc_net_route(huge).routes.size() == gd::k_max_routes);
}

}  // namespace GD_UNITY_ID
