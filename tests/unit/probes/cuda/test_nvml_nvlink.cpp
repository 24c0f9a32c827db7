// NVLink from NVML: the helper's NVLink lines against the fake NVML (tests/fakes/
// fake_nvml_nvlink.c), then the facts gpudoctor makes of them; and the reply parser on protocol
// text written by hand in the helper's format (docs/helper-protocol.md, "NVLink").
#include "core/fact_key.hpp"
#include "probes/cuda/helper_reply.hpp"
#include "probes/cuda/nvml_nvlink.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fact_access.hpp"
#include "helper_run.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::test::list_of;
using gd::test::reason_of;
using gd::test::ScopedEnv;
using gd::test::state_of;

namespace {

gd::FactSet nvlink_facts() {
  gd::HelperOutcome outcome = gd::test::run(gd::test::fake_request());
  REQUIRE(outcome.status == gd::HelperOutcome::Status::finished);
  gd::HelperReply reply = gd::test::parsed(outcome);
  REQUIRE(reply.complete);
  REQUIRE(reply.protocol_minor >= 3);
  gd::FactSet facts;
  gd::record_nvlink(reply, facts);
  return facts;
}

}  // namespace

TEST_CASE("nvlink: a GPU whose NVML answers NOT_SUPPORTED has no NVLink, and that is no fault", "[probes][nvlink]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "1");
  gd::FactSet facts = nvlink_facts();
  CHECK(facts.get_int("nvlink.gpus_checked"_fact) == 1);
  CHECK(facts.get_int("nvlink.gpus_with_links"_fact) == 0);
  CHECK(state_of(facts, "nvlink.gpu.0.links"_fact) == gd::FactState::absent);
  CHECK(list_of(facts, "nvlink.links_down"_fact).empty());
  CHECK(list_of(facts, "nvlink.gpus_fewer_links"_fact).empty());
  CHECK(list_of(facts, "nvlink.error_links"_fact).empty());
}

TEST_CASE("nvlink: eight GPUs of 18 links, all up", "[probes][nvlink]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "8");
  ScopedEnv links("FAKE_NVML_NVLINK_LINKS", "18");
  gd::FactSet facts = nvlink_facts();
  CHECK(facts.get_int("nvlink.gpus_with_links"_fact) == 8);
  CHECK(facts.get_int("nvlink.links_per_gpu"_fact) == 18);
  CHECK(facts.get_int("nvlink.max_links_up"_fact) == 18);
  CHECK(facts.get_string("nvlink.version"_fact) == "4.0");  // enum 6 is NVLink 4.0, not 6
  CHECK(facts.get_int("nvlink.gpu.7.links_up"_fact) == 18);
  CHECK(facts.get_int("nvlink.gpu.7.replay_errors"_fact) == 0);
  CHECK(list_of(facts, "nvlink.gpu.0.remote_kinds"_fact) == std::vector<std::string>{"NVSwitch"});
  CHECK(list_of(facts, "nvlink.gpu.0.remote_bus_ids"_fact).size() == 4);  // the four NVSwitches
  CHECK(list_of(facts, "nvlink.links_down"_fact).empty());
  CHECK(list_of(facts, "nvlink.gpus_fewer_links"_fact).empty());
}

TEST_CASE("nvlink: one link down on one GPU names the GPU and the link", "[probes][nvlink]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "8");
  ScopedEnv links("FAKE_NVML_NVLINK_LINKS", "18");
  ScopedEnv down("FAKE_NVML_NVLINK_DOWN_3", "7");
  gd::FactSet facts = nvlink_facts();
  CHECK(list_of(facts, "nvlink.links_down"_fact) == std::vector<std::string>{"GPU 3 (00000000:1B:00.0) link 7"});
  CHECK(list_of(facts, "nvlink.gpus_fewer_links"_fact) ==
        std::vector<std::string>{"GPU 3 (00000000:1B:00.0): 17 of 18 links up, link 7 down; another GPU has 18 up"});
  CHECK(list_of(facts, "nvlink.gpus_fewer_links_gpus"_fact) == std::vector<std::string>{"GPU-30313233-3435-3637-3839-3a3b3c3d3e3f"});
  CHECK(list_of(facts, "nvlink.gpu.3.links_down"_fact) == std::vector<std::string>{"link 7"});
  CHECK(facts.get_int("nvlink.gpu.3.links_up"_fact) == 17);
}

TEST_CASE("nvlink: a GPU with no link up counts only where NVSwitches are on the bus", "[probes][nvlink]") {
  // Two NVLink-capable cards, one bridged to a third GPU and one without a bridge: the unbridged
  // card reports every link inactive. On a PCIe node that is how it is built; on an NVSwitch board
  // it is a GPU that lost all its links.
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  ScopedEnv links("FAKE_NVML_NVLINK_LINKS", "4");
  ScopedEnv down("FAKE_NVML_NVLINK_DOWN_1", "0,1,2,3");
  gd::HelperOutcome outcome = gd::test::run(gd::test::fake_request());
  gd::HelperReply reply = gd::test::parsed(outcome);
  REQUIRE(reply.complete);
  gd::FactSet pcie_node;
  pcie_node.set("pci.nvswitch_count"_fact, std::int64_t{0}, "test");
  gd::record_nvlink(reply, pcie_node);
  CHECK(list_of(pcie_node, "nvlink.gpus_fewer_links"_fact).empty());
  gd::FactSet hgx_node;
  hgx_node.set("pci.nvswitch_count"_fact, std::int64_t{4}, "test");
  gd::record_nvlink(reply, hgx_node);
  CHECK(list_of(hgx_node, "nvlink.gpus_fewer_links"_fact) ==
        std::vector<std::string>{"GPU 1 (00000000:19:00.0): 0 of 4 links up, links 0, 1, 2, 3 down; another GPU has 4 up"});
}

TEST_CASE("nvlink: links down on every GPU alike are no GPU with fewer links", "[probes][nvlink]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "4");
  ScopedEnv links("FAKE_NVML_NVLINK_LINKS", "18");
  ScopedEnv down("FAKE_NVML_NVLINK_DOWN", "12,13,14,15,16,17");
  gd::FactSet facts = nvlink_facts();
  CHECK(facts.get_int("nvlink.max_links_up"_fact) == 12);
  CHECK(list_of(facts, "nvlink.links_down"_fact).size() == 24);
  CHECK(list_of(facts, "nvlink.gpus_fewer_links"_fact).empty());
}

TEST_CASE("nvlink: a GPU in MIG mode leaves the comparison unknown (NVML reports its links down)", "[probes][nvlink]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  ScopedEnv links("FAKE_NVML_NVLINK_LINKS", "18");
  ScopedEnv down("FAKE_NVML_NVLINK_DOWN_1", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17");
  ScopedEnv mig("FAKE_NVML_MIG_1", "1,1");
  gd::FactSet facts = nvlink_facts();
  CHECK(state_of(facts, "nvlink.gpus_fewer_links"_fact) == gd::FactState::unknown);
  CHECK(reason_of(facts, "nvlink.gpus_fewer_links"_fact).find("MIG") != std::string::npos);
}

TEST_CASE("nvlink: error counters name the link; Blackwell's failed recoveries count too", "[probes][nvlink]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  ScopedEnv links("FAKE_NVML_NVLINK_LINKS", "4");
  SECTION("replay and CRC counters") {
    ScopedEnv errors("FAKE_NVML_NVLINK_ERRORS_0_2", "12,0,4,0");
    gd::FactSet facts = nvlink_facts();
    CHECK(list_of(facts, "nvlink.error_links"_fact) == std::vector<std::string>{"GPU 0 (00000000:18:00.0) link 2: 12 replay, 4 CRC flit"});
    CHECK(facts.get_int("nvlink.gpu.0.replay_errors"_fact) == 12);
    CHECK(facts.get_int("nvlink.gpu.0.crc_flit_errors"_fact) == 4);
    CHECK(facts.get_int("nvlink.gpu.1.replay_errors"_fact) == 0);
  }
  SECTION("no counters, recovery fields") {
    ScopedEnv none("FAKE_NVML_NVLINK_NO_COUNTERS", "1");
    ScopedEnv version("FAKE_NVML_NVLINK_VERSION", "7");
    ScopedEnv recovery("FAKE_NVML_NVLINK_RECOVERY_1", "2,9");
    gd::FactSet facts = nvlink_facts();
    CHECK(facts.get_string("nvlink.version"_fact) == "5.0");
    CHECK(state_of(facts, "nvlink.gpu.0.replay_errors"_fact) == gd::FactState::unknown);
    CHECK(facts.get_int("nvlink.gpu.1.recovery_failed"_fact) == 8);
    CHECK(list_of(facts, "nvlink.error_links"_fact).size() == 4);
    CHECK(list_of(facts, "nvlink.error_links"_fact)[0] == "GPU 1 (00000000:19:00.0) link 0: 2 failed recoveries");
  }
}

TEST_CASE("nvlink: a reply before protocol 1.3 leaves the NVLink facts unknown", "[probes][nvlink]") {
  auto reply = gd::parse_helper_reply("gpudoctor-helper\t1.2\nnvml.device_count\t1\nnvml.device.0.name\tNVIDIA H200\nend\tok\n");
  REQUIRE(reply);
  gd::FactSet facts;
  gd::record_nvlink(*reply, facts);
  CHECK(state_of(facts, "nvlink.gpus_with_links"_fact) == gd::FactState::unknown);
  CHECK(reason_of(facts, "nvlink.gpus_with_links"_fact).find("protocol 1.2") != std::string::npos);
}

TEST_CASE("helper reply: NVLink lines are kept apart from the health lines, bounded", "[probes][helper_reply]") {
  std::string text = "gpudoctor-helper\t1.3\nnvml.device.0.ecc_mode.current\t1\nnvml.device.0.nvlink.links\t18\n"
                     "nvml.device.0.nvlink.3.state\t0\nnvml.device.1.nvlink.result\t3\n";
  for (int i = 0; i < 600; ++i) text += "nvml.device.2.nvlink." + std::to_string(i) + ".state\t1\n";
  text += "end\tok\n";
  auto reply = gd::parse_helper_reply(text);
  REQUIRE(reply);
  REQUIRE(reply->nvml_devices.size() == 3);
  CHECK(reply->nvml_devices[0].nvlink.at("links") == "18");
  CHECK(reply->nvml_devices[0].nvlink.at("3.state") == "0");
  CHECK(reply->nvml_devices[0].health.count("nvlink.links") == 0);
  CHECK(reply->nvml_devices[0].health.at("ecc_mode.current") == "1");
  CHECK(reply->nvml_devices[1].nvlink.at("result") == "3");
  CHECK(reply->nvml_devices[2].nvlink.size() == gd::k_helper_max_nvlink_keys);
}

}  // namespace GD_UNITY_ID
