// The nccl probe on small trees under --root (RealHost on a temporary folder): the libraries
// probe predicts the loader's libnccl.so.2 and the python layer's facts name the wheel and torch,
// as they would in a whole run; then probe_nccl reads the files they point at.
#include "probes/nccl/nccl_probe.hpp"

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"

#include <string>
#include <vector>

#include "ldconfig_tree.hpp"
#include "probes/libraries/libraries.hpp"
#include "sys/real_host.hpp"
#include "temp_tree.hpp"
#include "tiny_elf.hpp"
#include "fact_access.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;

namespace {

constexpr std::string_view k_site = "/venv/lib/python3.12/site-packages";
constexpr std::string_view k_system_dir = "/usr/lib/x86_64-linux-gnu";

std::string wheel_metadata(std::string_view name, std::string_view version) {
  return "Metadata-Version: 2.1\nName: " + std::string(name) + "\nVersion: " + std::string(version) +
         "\nSummary: NVIDIA Collective Communication Library (NCCL) Runtime\n\nNCCL (pronounced \"Nickel\") ...\n";
}

/// nvidia-nccl-cu12 <version> installed by pip in the venv's site-packages.
void install_wheel(const TempTree& tree, std::string_view version, std::string_view metadata) {
  const std::string site(k_site);
  tree.file(site + "/nvidia/nccl/lib/libnccl.so.2", gd::test::elf_fixture("libcuda.x86_64.so"));
  tree.file(site + "/nvidia_nccl_cu12-" + std::string(version) + ".dist-info/METADATA", metadata);
}

/// The libnccl2 .deb's files: libnccl.so.2 -> libnccl.so.<version>.
void install_system(const TempTree& tree, std::string_view version) {
  const std::string dir(k_system_dir);
  tree.file(dir + "/libnccl.so." + std::string(version), gd::test::elf_fixture("libcuda.x86_64.so"));
  tree.link(dir + "/libnccl.so.2", "libnccl.so." + std::string(version));
}

/// The python layer's facts for a venv with torch (CUDA build) and these distributions, on a host
/// with one H200 (the pci layer's facts).
void python_facts(FactSet& facts, std::vector<std::string> dists, bool torch) {
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1}, "test");
  facts.set("pci.gpu.*.compute_capability"_pattern.at(0), std::string("9.0"), "test");
  facts.set("py.dists"_fact, std::move(dists), "test");
  facts.set("torch.installed"_fact, torch, "test");
  if (torch) {
    facts.set("torch.path"_fact, std::string(k_site) + "/torch", "test");
    facts.set("torch.cpu_only"_fact, false, "test");
  }
}

FactSet run(const TempTree& tree, FactSet facts) {
  gd::RealHost host(tree.root(), {});
  facts.set("host.arch"_fact, std::string("x86_64"), "test");
  gd::probe_libraries(host, gd::ProbeOptions{}, facts);
  gd::probe_nccl(host, gd::ProbeOptions{}, facts);
  return facts;
}

std::vector<std::string> list(const FactSet& facts, gd::FactName name) { return gd::test::list_of(facts, name); }

FactState state(const FactSet& facts, gd::FactName name) { return gd::test::state_of(facts, name); }

}  // namespace

TEST_CASE("nccl probe: torch with the nvidia-nccl-cu12 wheel", "[nccl][probe]") {
  TempTree tree;
  tree.dir("/usr/lib/x86_64-linux-gnu");
  install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  tree.dir(std::string(k_site) + "/torch/lib");
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")", "torch 2.8.0 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  CHECK(list(facts, "nccl.libraries"_fact) ==
        std::vector<std::string>{"2.27.3 nvidia-nccl-cu12 wheel " + std::string(k_site) + "/nvidia/nccl/lib/libnccl.so.2"});
  CHECK(facts.get_int("nccl.count"_fact) == 1);
  CHECK(facts.get_string("nccl.version"_fact) == "2.27.3");
  CHECK(list(facts, "nccl.versions"_fact) == std::vector<std::string>{"2.27.3"});
  CHECK(list(facts, "nccl.too_old_for_gpus"_fact).empty());
  CHECK(state(facts, "nccl.socket_ifname.unmatched"_fact) == FactState::absent);
  CHECK(state(facts, "lib.libnccl.resolved"_fact) == FactState::absent);  // no system copy
}

TEST_CASE("nccl probe: the system's libnccl.so.2 -> libnccl.so.2.27.3, no Python", "[nccl][probe]") {
  TempTree tree;
  install_system(tree, "2.27.3");
  FactSet facts;
  python_facts(facts, {}, false);
  facts = run(tree, std::move(facts));
  CHECK(facts.get_string("lib.libnccl.resolved_via"_fact) == "default");
  CHECK(list(facts, "nccl.libraries"_fact) ==
        std::vector<std::string>{"2.27.3 system (the loader's default folders) /usr/lib/x86_64-linux-gnu/libnccl.so.2"});
  CHECK(facts.get_string("nccl.version"_fact) == "2.27.3");
}

TEST_CASE("nccl probe: two copies of different versions, torch takes its wheel", "[nccl][probe]") {
  TempTree tree;
  install_system(tree, "2.21.5");
  install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  CHECK(facts.get_int("nccl.count"_fact) == 2);
  CHECK(list(facts, "nccl.versions"_fact) == std::vector<std::string>{"2.21.5", "2.27.3"});
  CHECK(facts.get_string("nccl.version"_fact) == "2.27.3");
  CHECK(facts.get_string("nccl.loaded_copy"_fact).value_or("").starts_with("2.27.3 nvidia-nccl-cu12 wheel"));
}

TEST_CASE("nccl probe: LD_LIBRARY_PATH puts another copy where a RUNPATH would take it", "[nccl][probe]") {
  TempTree tree;
  tree.file("/opt/nccl/lib/libnccl.so.2.21.5", gd::test::elf_fixture("libcuda.x86_64.so"));
  tree.link("/opt/nccl/lib/libnccl.so.2", "libnccl.so.2.21.5");
  install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  FactSet facts;
  facts.set("env.ld_library_path"_fact, std::string("/opt/nccl/lib"), "test");
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  CHECK(facts.get_int("nccl.count"_fact) == 2);
  const gd::Fact* version = facts.find("nccl.version"_fact);
  REQUIRE(version);
  CHECK(version->state == FactState::unknown);
  CHECK_THAT(version->reason, Catch::Contains("RUNPATH"));
}

TEST_CASE("nccl probe: torch's own copy is read for the version string NCCL compiles in", "[nccl][probe]") {
  TempTree tree;
  std::string rodata = std::string("\0", 1) + "NCCL version 2.18.1+cuda12.1" + std::string("\0", 1);
  tree.file(std::string(k_site) + "/torch/lib/libnccl.so.2",
            gd::test::elf_with_sections({{".text", std::string(64, '\x90')}, {".rodata", rodata}}));
  FactSet facts;
  python_facts(facts, {"torch 2.0.1 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  CHECK(list(facts, "nccl.libraries"_fact) ==
        std::vector<std::string>{"2.18.1 torch's own copy " + std::string(k_site) + "/torch/lib/libnccl.so.2"});
  CHECK(facts.get_string("nccl.version"_fact) == "2.18.1");
}

TEST_CASE("nccl probe: hostile files give unknown with the file named, never a crash", "[nccl][probe][hostile]") {
  TempTree tree;
  install_wheel(tree, "2.27.3", std::string("\0\0garbage\xff\xfe\nVersion: \n", 22));
  // torch/lib: a loop of links, and a "library" that is not ELF.
  tree.link(std::string(k_site) + "/torch/lib/libnccl.so", "libnccl.so.2");
  tree.link(std::string(k_site) + "/torch/lib/libnccl.so.2", "libnccl.so");
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  auto libraries = list(facts, "nccl.libraries"_fact);
  REQUIRE(libraries.size() == 1);  // the loop is no file
  CHECK_THAT(libraries[0], Catch::StartsWith("unknown nvidia-nccl-cu12 wheel"));
  CHECK_THAT(libraries[0], Catch::Contains("nvidia_nccl_cu12-2.27.3.dist-info/METADATA"));
  const gd::Fact* version = facts.find("nccl.version"_fact);
  REQUIRE(version);
  CHECK(version->state == FactState::unknown);
  CHECK_THAT(version->reason, Catch::Contains("METADATA"));

  TempTree not_elf;
  not_elf.file(std::string(k_site) + "/torch/lib/libnccl.so.2", "INPUT(libnccl_static.a)\n");
  FactSet more;
  python_facts(more, {"torch 2.0.1 (" + std::string(k_site) + ")"}, true);
  more = run(not_elf, std::move(more));
  CHECK_THAT(list(more, "nccl.libraries"_fact).at(0), Catch::Contains("libnccl.so.2: not an ELF file"));
}

TEST_CASE("nccl probe: a wheel whose library is missing is listed with the file named", "[nccl][probe][hostile]") {
  TempTree tree;
  tree.file(std::string(k_site) + "/nvidia_nccl_cu12-2.27.3.dist-info/METADATA", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  CHECK(list(facts, "nccl.libraries"_fact) ==
        std::vector<std::string>{"unknown nvidia-nccl-cu12 wheel " + std::string(k_site) + "/nvidia/nccl/lib/libnccl.so.2 (" +
                                 std::string(k_site) + "/nvidia/nccl/lib/libnccl.so.2: no such file, though the wheel's dist-info is there)"});
  CHECK(state(facts, "nccl.version"_fact) == FactState::unknown);
}

TEST_CASE("nccl probe: NCCL_SOCKET_IFNAME, NCCL_IB_HCA and NCCL_TOPO_FILE against the host", "[nccl][probe]") {
  TempTree tree;
  install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  tree.file("/sys/class/net/eth0/operstate", "up\n");
  tree.file("/sys/class/net/eth1/operstate", "down\n");
  tree.file("/sys/class/net/lo/operstate", "unknown\n");
  tree.file("/sys/class/net/lo/flags", "0x9\n");
  tree.file("/proc/net/route", "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
                               "eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
                               "eth1\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n");
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  facts.set("env.nccl_socket_ifname"_fact, std::string("=eth1,eth2"), "test");
  facts.set("env.nccl_ib_hca"_fact, std::string("mlx5_0:1"), "test");
  facts.set("limits.rdma.devices"_fact, std::vector<std::string>{}, "test");
  facts.set("env.nccl_topo_file"_fact, std::string("/etc/nccl/topo.xml"), "test");
  facts.set("env.nccl_p2p_disable"_fact, std::string("1"), "test");
  facts = run(tree, std::move(facts));
  CHECK(list(facts, "nccl.net.interfaces"_fact) == std::vector<std::string>{"eth0 up", "eth1 down", "lo up (operstate unknown, IFF_UP)"});
  CHECK(list(facts, "nccl.socket_ifname.unmatched"_fact) ==
        std::vector<std::string>{"eth1: down (eth1 down)", "eth2: no such interface"});
  CHECK(list(facts, "nccl.ib_hca.unmatched"_fact) == std::vector<std::string>{"mlx5_0: no such device"});
  CHECK(state(facts, "nccl.ib_hca.down_ports"_fact) == FactState::unknown);  // the RDMA layer did not run
  CHECK(facts.get_string("nccl.topo_file.problem"_fact) == "/etc/nccl/topo.xml: no such file");
  CHECK(list(facts, "nccl.transports_disabled"_fact).size() == 1);
  // eth0 and eth1 both reach 10.0.0.0/24: NCCL_SOCKET_IFNAME keeps only eth1, but the kernel routes
  // by the table (NVIDIA/nccl#1581).
  CHECK(list(facts, "nccl.routes.duplicates"_fact) == std::vector<std::string>{"10.0.0.0/255.255.255.0 via eth0, eth1"});
}

TEST_CASE("nccl probe: NCCL_IB_HCA against the ports that are down", "[nccl][probe]") {
  auto down_picked = [](std::string ib_hca) {
    TempTree tree;
    install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
    FactSet facts;
    python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
    facts.set("env.nccl_ib_hca"_fact, ib_hca, "test");
    facts.set("limits.rdma.devices"_fact, std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_3"}, "test");
    facts.set("rdma.down_port_ids"_fact, std::vector<std::string>{"mlx5_1:2", "mlx5_3:1"}, "test");
    return run(tree, std::move(facts));
  };
  CHECK(list(down_picked("=mlx5_0,mlx5_3"), "nccl.ib_hca.down_ports"_fact) == std::vector<std::string>{"mlx5_3:1"});
  // A prefix ("all ports of all cards starting with mlx5", NCCL's guide) names no port: NCCL uses
  // the active ones and skips the rest, as when the variable is unset, so an uncabled second port
  // or an idle storage HCA is rdma.port-down's information, not this warning.
  CHECK(list(down_picked("mlx5"), "nccl.ib_hca.down_ports"_fact).empty());
  CHECK(list(down_picked("mlx5_1"), "nccl.ib_hca.down_ports"_fact) == std::vector<std::string>{"mlx5_1:2"});
  CHECK(list(down_picked("mlx5_3:1,mlx5"), "nccl.ib_hca.down_ports"_fact) == std::vector<std::string>{"mlx5_3:1"});
  CHECK(list(down_picked("mlx5_1:1,mlx5_0"), "nccl.ib_hca.down_ports"_fact).empty());  // port 2 of mlx5_1 is not named
  CHECK(state(down_picked("^mlx5_0"), "nccl.ib_hca.down_ports"_fact) == FactState::absent);
}

TEST_CASE("nccl probe: RDMA rails sharing a subnet (multi-rail RoCE) are not NCCL's duplicate routes", "[nccl][probe]") {
  // Two ConnectX RoCE rails in 10.1.0.0/16 (routed per rail by source address with ip rule, which
  // /proc/net/route cannot show: it is the main table), and the front-end eno1 in 192.168.1.0/24.
  auto run_routes = [](std::optional<std::string> socket_ifname, bool plain_nic_in_rail_subnet) {
    TempTree tree;
    install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
    for (std::string rail : {"ens1np0", "ens2np0"}) {
      tree.file("/sys/class/net/" + rail + "/operstate", "up\n");
      tree.file("/sys/class/net/" + rail + "/device/infiniband/mlx5_" + rail.substr(3, 1) + "/node_type", "1: CA\n");
    }
    tree.file("/sys/class/net/eno1/operstate", "up\n");
    std::string routes = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
                         "ens1np0\t0000010A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n"
                         "ens2np0\t0000010A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n"
                         "eno1\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
    if (plain_nic_in_rail_subnet) routes += "eno1\t0000010A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n";
    tree.file("/proc/net/route", routes);
    FactSet facts;
    python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
    if (socket_ifname) facts.set("env.nccl_socket_ifname"_fact, *socket_ifname, "test");
    return list(run(tree, std::move(facts)), "nccl.routes.duplicates"_fact);
  };
  CHECK(run_routes(std::nullopt, false).empty());
  // A plain NIC in the rails' subnet: the kernel may send NCCL's sockets out of it.
  CHECK(run_routes(std::nullopt, true) == std::vector<std::string>{"10.1.0.0/255.255.0.0 via eno1, ens1np0, ens2np0"});
  // NCCL_SOCKET_IFNAME picks the rails on purpose: their shared subnet counts again.
  CHECK(run_routes(std::string("=ens1np0"), false) == std::vector<std::string>{"10.1.0.0/255.255.0.0 via ens1np0, ens2np0"});
}

TEST_CASE("nccl probe: variables NCCL takes from /etc/nccl.conf say so", "[nccl][probe]") {
  TempTree tree;
  install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  tree.file("/sys/class/net/eno1/operstate", "up\n");
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  // As the environment probe sets them (probes/environment/nccl_conf): the file is the source.
  facts.set("env.nccl_socket_ifname"_fact, std::string("eth2"), "/etc/nccl.conf");
  facts.set("env.nccl_p2p_disable"_fact, std::string("1"), "/etc/nccl.conf");
  facts.set("env.nccl_ib_disable"_fact, std::string("1"), "env:NCCL_IB_DISABLE");
  facts.set("env.nccl_topo_file"_fact, std::string("/etc/nccl/topo.xml"), "env:NCCL_TOPO_FILE");
  facts = run(tree, std::move(facts));
  CHECK(facts.get_string("nccl.socket_ifname.set_in"_fact) == "/etc/nccl.conf");
  CHECK(facts.get_string("nccl.topo_file.set_in"_fact) == "the environment");
  CHECK(state(facts, "nccl.ib_hca.set_in"_fact) == FactState::absent);
  CHECK(facts.get_int("nccl.socket_ifname.usable_count"_fact) == 0);
  auto disabled = list(facts, "nccl.transports_disabled"_fact);
  REQUIRE(disabled.size() == 2);
  CHECK(disabled[0].starts_with("NCCL_P2P_DISABLE=1 ("));
  CHECK(disabled[0].ends_with(" [set in /etc/nccl.conf]"));
  CHECK_FALSE(disabled[1].ends_with("]"));  // NCCL_IB_DISABLE, from the environment: as before
  CHECK(facts.find("nccl.transports_disabled"_fact)->source == "env:NCCL_*, /etc/nccl.conf");
}

TEST_CASE("nccl probe: a route file larger than gpudoctor reads is unknown, named", "[nccl][probe][hostile]") {
  TempTree tree;
  install_wheel(tree, "2.27.3", wheel_metadata("nvidia-nccl-cu12", "2.27.3"));
  std::string huge = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";
  while (huge.size() < (std::size_t{5} << 20)) huge += "eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
  tree.file("/proc/net/route", huge);
  tree.file("/sys/class/net/eth0/operstate", "up\n");
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.27.3 (" + std::string(k_site) + ")"}, true);
  facts = run(tree, std::move(facts));
  const gd::Fact* routes = facts.find("nccl.routes.duplicates"_fact);
  REQUIRE(routes);
  CHECK(routes->state == FactState::unknown);
  CHECK_THAT(routes->reason, Catch::Contains("/proc/net/route is larger than gpudoctor reads"));
}

TEST_CASE("nccl probe: a host without NCCL reads no network and has nothing to judge", "[nccl][probe]") {
  TempTree tree;
  tree.dir("/usr/lib/x86_64-linux-gnu");
  FactSet facts;
  python_facts(facts, {}, false);
  facts = run(tree, std::move(facts));
  CHECK(facts.get_int("nccl.count"_fact) == 0);
  CHECK(state(facts, "nccl.version"_fact) == FactState::absent);
  CHECK(state(facts, "nccl.net.interfaces"_fact) == FactState::absent);
  CHECK(list(facts, "nccl.too_old_for_gpus"_fact).empty());
}

TEST_CASE("nccl probe: NCCL 2.25.1 on an sm_120 GPU", "[nccl][probe]") {
  TempTree tree;
  install_wheel(tree, "2.25.1", wheel_metadata("nvidia-nccl-cu12", "2.25.1"));
  FactSet facts;
  python_facts(facts, {"nvidia-nccl-cu12 2.25.1 (" + std::string(k_site) + ")"}, true);
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{2}, "test");  // replaces the H200
  facts.set("pci.gpu.*.compute_capability"_pattern.at(0), std::string("12.0"), "test");
  facts.set("pci.gpu.*.architecture"_pattern.at(0), std::string("Blackwell"), "test");
  facts.set("pci.gpu.*.compute_capability"_pattern.at(1), std::string("9.0"), "test");
  facts = run(tree, std::move(facts));
  CHECK(list(facts, "nccl.too_old_for_gpus"_fact) ==
        std::vector<std::string>{"GPU 0 sm_120 (Blackwell) needs NCCL >= 2.26.2 (NVIDIA/nccl-tests#287), 2.25.1 loads"});
}

}  // namespace GD_UNITY_ID
