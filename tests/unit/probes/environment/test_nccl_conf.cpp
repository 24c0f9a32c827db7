// NCCL's configuration files: the parser against what NCCL's setEnvFile does with each kind of
// line (src/misc/param.cc), and the environment probe's NCCL_* facts on small trees: the
// environment first, then ~/.nccl.conf (or $NCCL_CONF_FILE), then /etc/nccl.conf.
#include "probes/environment/nccl_conf.hpp"
#include "probes/shared/account_files.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <unistd.h>
#include <string>

#include "core/fact_key.hpp"
#include "fact_access.hpp"
#include "probes/environment/environment.hpp"
#include "scripted_env_host.hpp"
#include "sys/real_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

using gd::FactSet;
using gd::FactState;
using gd::test::TempTree;

namespace {

// NCCL's environment-variable guide gives this example for /etc/nccl.conf and ~/.nccl.conf.
constexpr std::string_view k_guide_example = "NCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME==ens1f0\n";

constexpr std::string_view k_passwd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n";

/// An /etc/passwd in which the uid running the test has the home /home/me: NCCL's ~/.nccl.conf
/// for the user running gpudoctor is then /home/me/.nccl.conf, whoever runs the test.
std::string passwd_with_me() {
  const std::string uid = std::to_string(::getuid());
  return "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nme:x:" + uid + ":" + uid + ":Me:/home/me:/bin/sh\n";
}

FactSet run_env(const TempTree& tree, std::map<std::string, std::string> env = {}) {
  gd::RealHost real(tree.root(), {});
  gd::test::ScriptedEnvHost host(real, std::move(env));
  FactSet facts;
  gd::probe_environment(host, gd::ProbeOptions{}, facts);
  return facts;
}

std::string source_of(const FactSet& facts, gd::FactName name) {
  const gd::Fact* fact = facts.find(name);
  REQUIRE(fact);
  return fact->source;
}

}  // namespace

TEST_CASE("nccl conf: lines as setEnvFile takes them", "[nccl][environment]") {
  auto lines = gd::parse_nccl_conf(k_guide_example);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].name == "NCCL_DEBUG");
  CHECK(lines[0].value == "WARN");
  CHECK(lines[1].name == "NCCL_SOCKET_IFNAME");
  CHECK(lines[1].value == "=ens1f0");  // the first '=' splits: the value keeps NCCL's exact-name '='

  lines = gd::parse_nccl_conf(
      "# a comment\n"
       " # not a comment, and no equals sign: skipped\n"
      "\n"
      "NCCL_IB_HCA = mlx5_0\n"      // nothing trimmed: NCCL sets 'NCCL_IB_HCA ', never read
      "NCCL_P2P_DISABLE=1\r\n"       // a file written on Windows: the '\r' stays in the value
      "NCCL_NVLS_ENABLE=\n"          // an empty value is still set
      "NCCL_P2P_LEVEL=NVL");         // the last line needs no newline (getline)
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].name == "NCCL_IB_HCA ");
  CHECK(lines[0].value == " mlx5_0");
  CHECK(lines[1].value == "1\r");
  CHECK(lines[2].name == "NCCL_NVLS_ENABLE");
  CHECK(lines[2].value.empty());
  CHECK(lines[3].value == "NVL");

  // envVar and envValue are char[1024]: both are cut to 1023 bytes.
  lines = gd::parse_nccl_conf("NCCL_TOPO_FILE=" + std::string(2000, 'x') + "\n");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].value.size() == 1023);
}

TEST_CASE("nccl conf: the home folder is the uid's passwd entry", "[nccl][environment]") {
  CHECK(gd::passwd_home(k_passwd, 0) == "/root");
  CHECK(gd::passwd_home(k_passwd, 1000) == "/home/alice");
  CHECK_FALSE(gd::passwd_home(k_passwd, 1001));
  CHECK_FALSE(gd::passwd_home("broken line\n", 0));
}

TEST_CASE("nccl conf: /etc/nccl.conf fills what the environment leaves unset", "[nccl][environment]") {
  TempTree tree;
  tree.file("/etc/passwd", passwd_with_me());
  tree.file("/etc/nccl.conf",
            "# set by the cluster's image\n"
            "NCCL_SOCKET_IFNAME=eth2\n"
            "NCCL_IB_HCA=mlx5\n"
            "NCCL_SOCKET_IFNAME=eth3\n"         // a second line for a name changes nothing
            "NCCL_API_KEY=abc\n"                // secret-looking: never read out
            "HF_TOKEN=hf_abcdefghijklmnopq\n"   // not NCCL's: never read out
            "NCCL_DEBUG=INFO\n");
  FactSet facts = run_env(tree, {{"NCCL_IB_HCA", "mlx5_0"}});
  CHECK(facts.get_string("env.nccl_socket_ifname"_fact) == "eth2");
  CHECK(source_of(facts, "env.nccl_socket_ifname"_fact) == "/etc/nccl.conf");
  CHECK(facts.get_string("env.nccl_ib_hca"_fact) == "mlx5_0");  // the environment wins (setenv(..., 0))
  CHECK(source_of(facts, "env.nccl_ib_hca"_fact) == "env:NCCL_IB_HCA");
  CHECK(facts.get_string("env.nccl_debug"_fact) == "INFO");
  CHECK(gd::test::state_of(facts, "env.nccl_p2p_disable"_fact) == FactState::absent);
  auto settings = gd::test::list_of(facts, "env.nccl_conf.settings"_fact);
  CHECK(settings == std::vector<std::string>{"NCCL_SOCKET_IFNAME=eth2 (/etc/nccl.conf)",
                                             "NCCL_IB_HCA=mlx5 (/etc/nccl.conf; not applied: the environment sets it)",
                                             "NCCL_DEBUG=INFO (/etc/nccl.conf)"});
  CHECK(gd::test::list_of(facts, "env.nccl_conf.files"_fact) ==
        std::vector<std::string>{"/home/me/.nccl.conf: none", "/etc/nccl.conf: 3 NCCL setting(s)"});
}

TEST_CASE("nccl conf: ~/.nccl.conf, or $NCCL_CONF_FILE, comes before /etc/nccl.conf", "[nccl][environment]") {
  TempTree tree;
  tree.file("/etc/passwd", passwd_with_me());
  tree.file("/etc/nccl.conf", "NCCL_SOCKET_IFNAME=eth2\nNCCL_P2P_DISABLE=1\n");
  tree.file("/home/me/.nccl.conf", "NCCL_SOCKET_IFNAME=ib0\n");
  tree.file("/opt/job/nccl.conf", "NCCL_SOCKET_IFNAME=bond0\n");
  FactSet facts = run_env(tree);
  CHECK(facts.get_string("env.nccl_socket_ifname"_fact) == "ib0");
  CHECK(source_of(facts, "env.nccl_socket_ifname"_fact) == "/home/me/.nccl.conf");
  CHECK(facts.get_string("env.nccl_p2p_disable"_fact) == "1");
  CHECK(gd::test::list_of(facts, "env.nccl_conf.settings"_fact) ==
        std::vector<std::string>{"NCCL_SOCKET_IFNAME=ib0 (/home/me/.nccl.conf)",
                                 "NCCL_SOCKET_IFNAME=eth2 (/etc/nccl.conf; not applied: /home/me/.nccl.conf sets it first)",
                                 "NCCL_P2P_DISABLE=1 (/etc/nccl.conf)"});

  // NCCL_CONF_FILE replaces ~/.nccl.conf (it is read instead of it, not as well).
  facts = run_env(tree, {{"NCCL_CONF_FILE", "/opt/job/nccl.conf"}});
  CHECK(facts.get_string("env.nccl_socket_ifname"_fact) == "bond0");
  CHECK(source_of(facts, "env.nccl_socket_ifname"_fact) == "/opt/job/nccl.conf");
  CHECK(gd::test::list_of(facts, "env.nccl_conf.files"_fact) ==
        std::vector<std::string>{"/opt/job/nccl.conf: 1 NCCL setting(s)", "/etc/nccl.conf: 2 NCCL setting(s)"});

  facts = run_env(tree, {{"NCCL_CONF_FILE", "job/nccl.conf"}});
  CHECK_THAT(gd::test::list_of(facts, "env.nccl_conf.files"_fact).front(), Catch::Contains("relative path"));
  CHECK(facts.get_string("env.nccl_socket_ifname"_fact) == "eth2");
}

TEST_CASE("nccl conf: no file, and a uid without a passwd entry", "[nccl][environment]") {
  TempTree tree;
  tree.dir("/etc");
  FactSet facts = run_env(tree, {{"NCCL_SOCKET_IFNAME", "eth0"}});
  CHECK(facts.get_string("env.nccl_socket_ifname"_fact) == "eth0");
  CHECK(source_of(facts, "env.nccl_socket_ifname"_fact) == "env:NCCL_SOCKET_IFNAME");
  CHECK(gd::test::state_of(facts, "env.nccl_conf.settings"_fact) == FactState::absent);
  // No /etc/passwd: NCCL's getpwuid finds no home, and only /etc/nccl.conf is looked at.
  CHECK(gd::test::list_of(facts, "env.nccl_conf.files"_fact) == std::vector<std::string>{"/etc/nccl.conf: none"});
}

}  // namespace GD_UNITY_ID
