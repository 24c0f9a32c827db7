// The nccl layer's overview line (probes/nccl/nccl_overview.cpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/all_layers.hpp"
#include "core/fact_key.hpp"
#include "probes/nccl/nccl_overview.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::AreaStatus;
using gd::FactSet;
using namespace gd::fact_literals;

namespace {

const gd::Layer& nccl_layer() { return gd::layer_named("nccl"); }

FactSet one_wheel() {
  FactSet facts;
  facts.set("nccl.libraries"_fact,
            std::vector<std::string>{"2.27.3 nvidia-nccl-cu12 wheel /venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2"});
  facts.set("nccl.count"_fact, std::int64_t{1});
  facts.set("nccl.version"_fact, std::string("2.27.3"));
  return facts;
}

}  // namespace

TEST_CASE("nccl line: the copy torch loads, and the interface NCCL_SOCKET_IFNAME names", "[report][areas][nccl]") {
  FactSet facts = one_wheel();
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), facts, {}).summary == "2.27.3 (nvidia-nccl-cu12 wheel)");
  facts.set("env.nccl_socket_ifname"_fact, std::string("eth0"));
  facts.set("nccl.socket_ifname.unmatched"_fact, std::vector<std::string>{});
  facts.set("nccl.socket_ifname.matched"_fact, std::vector<std::string>{"eth0 up"});
  gd::AreaLine line = gd::areas::nccl_overview_line(nccl_layer(), facts, {});
  CHECK(line.summary == "2.27.3 (nvidia-nccl-cu12 wheel), NCCL_SOCKET_IFNAME=eth0 up");
  CHECK(line.status == AreaStatus::ok);
  facts.set("env.nccl_socket_ifname"_fact, std::string("=eth0"));
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), facts, {}).summary == "2.27.3 (nvidia-nccl-cu12 wheel), NCCL_SOCKET_IFNAME==eth0 up");

  facts.set("env.nccl_socket_ifname"_fact, std::string("=eth2"));
  facts.set("nccl.socket_ifname.unmatched"_fact, std::vector<std::string>{"eth2: no such interface"});
  facts.set("nccl.socket_ifname.matched"_fact, std::vector<std::string>{});
  gd::Finding finding;
  finding.id = "nccl.socket-ifname-not-found";
  finding.area = "nccl";
  finding.severity = gd::Severity::error;
  line = gd::areas::nccl_overview_line(nccl_layer(), facts, {finding});
  CHECK(line.summary == "2.27.3 (nvidia-nccl-cu12 wheel), NCCL_SOCKET_IFNAME==eth2 (eth2: no such interface)");
  CHECK(line.status == AreaStatus::error);
}

TEST_CASE("nccl line: NCCL_SOCKET_IFNAME from /etc/nccl.conf says where it is set", "[report][areas][nccl]") {
  FactSet facts = one_wheel();
  facts.set("env.nccl_socket_ifname"_fact, std::string("eth0"), "/etc/nccl.conf");
  facts.set("nccl.socket_ifname.set_in"_fact, std::string("/etc/nccl.conf"), "/etc/nccl.conf");
  facts.set("nccl.socket_ifname.unmatched"_fact, std::vector<std::string>{});
  facts.set("nccl.socket_ifname.matched"_fact, std::vector<std::string>{"eth0 up"});
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), facts, {}).summary ==
        "2.27.3 (nvidia-nccl-cu12 wheel), NCCL_SOCKET_IFNAME=eth0 up [/etc/nccl.conf]");
  facts.set("nccl.socket_ifname.set_in"_fact, std::string("the environment"), "env:NCCL_SOCKET_IFNAME");
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), facts, {}).summary == "2.27.3 (nvidia-nccl-cu12 wheel), NCCL_SOCKET_IFNAME=eth0 up");
}

TEST_CASE("nccl line: not installed, and two copies", "[report][areas][nccl]") {
  FactSet none;
  none.set("nccl.libraries"_fact, std::vector<std::string>{});
  none.set("nccl.count"_fact, std::int64_t{0});
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), none, {}).summary == "not installed");

  FactSet system;
  system.set("nccl.libraries"_fact, std::vector<std::string>{"2.27.3 system (ld.so.cache) /usr/lib/x86_64-linux-gnu/libnccl.so.2"});
  system.set("nccl.count"_fact, std::int64_t{1});
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), system, {}).summary == "2.27.3 (system, ld.so.cache)");

  FactSet two;
  two.set("nccl.libraries"_fact,
          std::vector<std::string>{"2.27.3 nvidia-nccl-cu12 wheel /venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
                                   "2.21.5 system (ld.so.cache) /usr/lib/x86_64-linux-gnu/libnccl.so.2"});
  two.set("nccl.count"_fact, std::int64_t{2});
  two.set("nccl.version"_fact, std::string("2.27.3"));
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), two, {}).summary == "2 copies (2.27.3 wheel, 2.21.5 system), torch loads 2.27.3");
}

TEST_CASE("nccl line: --scope node leaves it out, an incomplete search is unknown", "[report][areas][nccl]") {
  FactSet node;
  node.set_unknown("nccl.count"_fact, "not checked (--scope node)", "scope:node");
  CHECK(gd::areas::nccl_overview_line(nccl_layer(), node, {}).status == AreaStatus::skipped);
  FactSet unknown;
  unknown.set("nccl.libraries"_fact, std::vector<std::string>{});
  unknown.set_unknown("nccl.count"_fact, "the search is incomplete: py.dists: EACCES", "test");
  gd::AreaLine line = gd::areas::nccl_overview_line(nccl_layer(), unknown, {});
  CHECK(line.status == AreaStatus::unknown);
  CHECK(line.summary == "copies unknown");
}

}  // namespace GD_UNITY_ID
