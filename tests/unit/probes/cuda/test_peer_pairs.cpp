#include "probes/cuda/peer_pairs.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "core/fact_key.hpp"
#include "probes/cuda/helper_reply.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

// gpudoctor-cuda-helper 1.3 against the fake libcuda of 3 GPUs (tests/fakes) with
// FAKE_CUDA_PEER_DROP_0_2=1 FAKE_CUDA_PEER_CORRUPT_2_1=77 FAKE_CUDA_PEER_ACCESS_1_0=0: its lines of
// the pairs as it wrote them (the stage, .name and per-GPU proof lines left out, which the pairs do
// not read). NVML numbers the first two GPUs the other way round (its index 0 is CUDA's 1), so
// its pairs must be matched by bus id; NVML's 2 -> 0 (CUDA's 2 -> 1) says "not supported" where
// CUDA says yes: a mismatch.
constexpr std::string_view k_three_gpus =
    "gpudoctor-helper\t1.3\n"
    "cuda.dlopen\tok\n"
    "cuda.init.result\t0\n"
    "cuda.device_count.result\t0\n"
    "cuda.device_count\t3\n"
    "cuda.peer.scope\tall\n"
    "cuda.peer.gpus\t3\n"
    "cuda.device.0.pci_bus_id\t0000:18:00.0\n"
    "cuda.device.0.check\tok\n"
    "cuda.peer.0.stage\toffer\n"
    "cuda.peer.0.1.can_access\t1\n"
    "cuda.device.1.pci_bus_id\t0000:19:00.0\n"
    "cuda.device.1.check\tok\n"
    "cuda.device.2.pci_bus_id\t0000:1A:00.0\n"
    "cuda.device.2.check\tok\n"
    "cuda.peer.2.0.can_access\t1\n"
    "cuda.peer.2.0.wait_us\t1\n"
    "cuda.peer.2.0.enable.result\t0\n"
    "cuda.peer.2.0.enable.name\tCUDA_SUCCESS\n"
    "cuda.peer.2.0.copy.result\t0\n"
    "cuda.peer.2.0.sync.result\t0\n"
    "cuda.peer.2.0.readback.result\t0\n"
    "cuda.peer.2.0.check\tok\n"
    "cuda.peer.2.0.duration_us\t15\n"
    "cuda.peer.2.1.can_access\t1\n"
    "cuda.peer.2.1.enable.result\t0\n"
    "cuda.peer.2.1.copy.result\t0\n"
    "cuda.peer.2.1.sync.result\t0\n"
    "cuda.peer.2.1.readback.result\t0\n"
    "cuda.peer.2.1.check\twrong\n"
    "cuda.peer.2.1.check.index\t77\n"
    "cuda.peer.2.1.check.value\t0xf59c9b3f\n"
    "cuda.peer.2.1.check.expected\t0xf59c9a3f\n"
    "cuda.peer.2.1.duration_us\t13\n"
    "cuda.peer.2.stage\tdone\n"
    "cuda.peer.0.1.enable.result\t0\n"
    "cuda.peer.0.1.copy.result\t0\n"
    "cuda.peer.0.1.sync.result\t0\n"
    "cuda.peer.0.1.readback.result\t0\n"
    "cuda.peer.0.1.check\tok\n"
    "cuda.peer.0.1.duration_us\t16\n"
    "cuda.peer.0.2.can_access\t1\n"
    "cuda.peer.0.2.enable.result\t0\n"
    "cuda.peer.0.2.copy.result\t0\n"
    "cuda.peer.0.2.sync.result\t0\n"
    "cuda.peer.0.2.readback.result\t0\n"
    "cuda.peer.0.2.check\twrong\n"
    "cuda.peer.0.2.check.index\t0\n"
    "cuda.peer.0.2.check.value\t0x0badf00d\n"
    "cuda.peer.0.2.check.expected\t0x5eed0000\n"
    "cuda.peer.0.2.duration_us\t1200\n"
    "cuda.peer.1.2.can_access\t1\n"
    "cuda.peer.1.2.enable.result\t0\n"
    "cuda.peer.1.2.copy.result\t0\n"
    "cuda.peer.1.2.sync.result\t0\n"
    "cuda.peer.1.2.readback.result\t0\n"
    "cuda.peer.1.2.check\tok\n"
    "cuda.peer.1.2.duration_us\t17\n"
    "cuda.peer.1.0.can_access\t0\n"
    "nvml.dlopen\tok\n"
    "nvml.init.result\t0\n"
    "nvml.device_count\t3\n"
    "nvml.device.0.pci_bus_id\t00000000:19:00.0\n"
    "nvml.device.1.pci_bus_id\t00000000:18:00.0\n"
    "nvml.device.2.pci_bus_id\t00000000:1A:00.0\n"
    "nvml.stage\tnvml-peers\n"
    "nvml.peer.0.1.read\t5\n"
    "nvml.peer.0.1.write\t5\n"
    "nvml.peer.0.1.nvlink\t5\n"
    "nvml.peer.0.1.topology\t30\n"
    "nvml.peer.1.0.read\t0\n"
    "nvml.peer.1.0.write\t0\n"
    "nvml.peer.1.0.nvlink\t5\n"
    "nvml.peer.0.2.read\t0\n"
    "nvml.peer.0.2.write\t0\n"
    "nvml.peer.2.0.read\t5\n"
    "nvml.peer.2.0.write\t5\n"
    "nvml.peer.2.0.nvlink\t5\n"
    "nvml.peer.2.0.topology.result\t3\n"
    "end\tok\n";

gd::HelperReply parse(std::string_view text) {
  auto reply = gd::parse_helper_reply(text);
  REQUIRE(reply);
  return *reply;
}

std::string status_of(const gd::FactSet& facts, int a, int b) {
  return facts.get_string(gd::FactName::unchecked("p2p.pair." + std::to_string(a) + "." + std::to_string(b) + ".status"))
      .value_or("(none)");
}

}  // namespace

TEST_CASE("helper reply 1.3: the pairs, their calls and checks, NVML's view and the sources' steps", "[probes][peer_pairs]") {
  gd::HelperReply reply = parse(k_three_gpus);
  CHECK(reply.protocol_minor == 3);
  CHECK(reply.peer_scope == "all");
  CHECK(reply.peer_gpus == 3);
  REQUIRE(reply.peer_pairs.size() == 6);
  CHECK(reply.peer_pairs[0].source == 0);
  CHECK(reply.peer_pairs[0].destination == 1);
  const gd::HelperPeerPair& dropped = reply.peer_pairs[1];
  CHECK(dropped.destination == 2);
  CHECK(dropped.check == "wrong");
  CHECK(dropped.check_index == 0);
  CHECK(dropped.check_value == "0x0badf00d");
  CHECK(dropped.copy.result == 0);
  CHECK(reply.peer_pairs[2].can_access == 0);  // 1 -> 0
  CHECK(reply.peer_pairs[4].enable.name == "CUDA_SUCCESS");  // 2 -> 0
  CHECK(reply.peer_pairs[4].wait_us == 1);
  REQUIRE(reply.nvml_peer_pairs.size() == 4);
  CHECK(reply.nvml_peer_pairs[0].topology == 30);
  CHECK(reply.nvml_peer_pairs[3].topology_call.result == 3);  // 2 -> 0: the query failed
  CHECK(reply.failed_values.empty());  // no pair line fell through to the failed-value table
  REQUIRE(reply.peer_sources.size() == 2);
  CHECK(reply.peer_sources[1].steps.last == "done");
  CHECK(reply.nvml_steps.last == "nvml-peers");
  CHECK(reply.cuda_devices.size() == 3);  // the pair lines make no device entries
}

TEST_CASE("peer pairs: a dropped and a corrupted pair named with both GPUs, the others proven", "[probes][peer_pairs]") {
  gd::FactSet facts;
  gd::record_peer_pairs(parse(k_three_gpus), facts, "helper did not get there");
  CHECK(facts.get_int("p2p.gpu_count"_fact) == 3);
  CHECK(facts.get_string("p2p.scope"_fact) == "all");
  CHECK(facts.get_int("p2p.pairs"_fact) == 6);
  CHECK(facts.get_int("p2p.pairs_with_access"_fact) == 5);
  CHECK(facts.get_int("p2p.pairs_tested"_fact) == 5);
  CHECK(facts.get_int("p2p.pairs_proven"_fact) == 3);
  CHECK(facts.get_int("p2p.pairs_wrong_count"_fact) == 2);
  CHECK(facts.get_int("p2p.pairs_failed_count"_fact) == 2);
  CHECK(facts.get_int("p2p.pairs_no_access_count"_fact) == 1);
  CHECK(facts.get_int("p2p.pairs_not_tested_count"_fact) == 0);
  CHECK(facts.get_bool("p2p.no_access_at_all"_fact) == false);
  CHECK(facts.get_int("p2p.duration_ms_max"_fact) == 2);  // 1200 µs, rounded up
  CHECK(status_of(facts, 0, 1) == "proven");
  CHECK(status_of(facts, 0, 2) == "wrong");
  CHECK(status_of(facts, 2, 1) == "wrong");
  CHECK(status_of(facts, 1, 0) == "no-access");
  const gd::Fact* wrong = facts.find("p2p.pairs_wrong"_fact);
  REQUIRE(wrong);
  const auto& items = std::get<std::vector<std::string>>(wrong->value);
  REQUIRE(items.size() == 2);
  CHECK(items[0].starts_with("GPU 0 (0000:18:00.0) -> GPU 2 (0000:1A:00.0): element 0 is 0x0badf00d"));
  CHECK(items[0].find("never arrived") != std::string::npos);
  CHECK(items[1].starts_with("GPU 2 (0000:1A:00.0) -> GPU 1 (0000:19:00.0): element 77"));
  CHECK(items[1].find("corrupted") != std::string::npos);
  // NVML matched by bus id: its 1 -> 0 is CUDA's 0 -> 1 (both say access), its 2 -> 0 is CUDA's 2 -> 1.
  const gd::Fact* mismatch = facts.find("p2p.capability_mismatch"_fact);
  REQUIRE(mismatch);
  const auto& disagree = std::get<std::vector<std::string>>(mismatch->value);
  REQUIRE(disagree.size() == 1);
  CHECK(disagree[0] == "GPU 2 (0000:1A:00.0) -> GPU 1 (0000:19:00.0): CUDA says peer access, NVML says read not supported, write not supported");
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.0.1.nvml")) ==
        "read OK, write OK, NVLink not supported, common ancestor a host bridge");
}

TEST_CASE("peer pairs: one GPU has no pairs and nothing unknown", "[probes][peer_pairs]") {
  gd::FactSet facts;
  gd::record_peer_pairs(parse("gpudoctor-helper\t1.3\ncuda.dlopen\tok\ncuda.init.result\t0\ncuda.device_count\t1\n"
                              "cuda.device.0.check\tok\nend\tok\n"),
                        facts, "helper did not get there");
  CHECK(facts.get_int("p2p.gpu_count"_fact) == 1);
  const gd::Fact* scope = facts.find("p2p.scope"_fact);
  REQUIRE(scope);
  CHECK(scope->state == gd::FactState::absent);
  CHECK(facts.get_int("p2p.pairs"_fact) == 0);
  CHECK(facts.get_int("p2p.pairs_wrong_count"_fact) == 0);
  CHECK(facts.get_bool("p2p.no_access_at_all"_fact) == false);
}

TEST_CASE("peer pairs: a reply before 1.3 leaves the pairs unknown, not passed", "[probes][peer_pairs]") {
  gd::FactSet facts;
  gd::record_peer_pairs(parse("gpudoctor-helper\t1.2\ncuda.dlopen\tok\ncuda.init.result\t0\ncuda.device_count\t8\nend\tok\n"),
                        facts, "helper did not get there");
  CHECK(facts.get_int("p2p.gpu_count"_fact) == 8);
  const gd::Fact* wrong = facts.find("p2p.pairs_wrong_count"_fact);
  REQUIRE(wrong);
  CHECK(wrong->state == gd::FactState::unknown);
  CHECK(wrong->reason.find("predates the pair proof") != std::string::npos);
}

TEST_CASE("peer pairs: a hang in a pair's copy and a GPU another job holds are not tested, with the reason",
          "[probes][peer_pairs]") {
  // GPU 1's thread hung in its copy to GPU 2 (FAKE_CUDA_HANG_IN=cuMemcpyPeer FAKE_CUDA_FAULT_DEVICE=1);
  // GPU 2's context failed with 46 (another job holds it in EXCLUSIVE_PROCESS mode).
  gd::FactSet facts;
  gd::record_peer_pairs(parse("gpudoctor-helper\t1.3\ncuda.dlopen\tok\ncuda.init.result\t0\ncuda.device_count\t3\n"
                              "cuda.peer.scope\tall\ncuda.peer.gpus\t3\n"
                              "cuda.device.0.pci_bus_id\t0000:18:00.0\ncuda.device.1.pci_bus_id\t0000:19:00.0\n"
                              "cuda.device.2.pci_bus_id\t0000:1A:00.0\n"
                              "cuda.device.2.context.result\t46\ncuda.device.2.context.name\tCUDA_ERROR_DEVICE_UNAVAILABLE\n"
                              "cuda.peer.0.1.can_access\t1\ncuda.peer.0.1.enable.result\t0\ncuda.peer.0.1.copy.result\t0\n"
                              "cuda.peer.0.1.sync.result\t0\ncuda.peer.0.1.readback.result\t0\ncuda.peer.0.1.check\tok\n"
                              "cuda.peer.0.2.can_access\t1\ncuda.peer.0.2.not_tested\tGPU 2: its own proof failed (in context)\n"
                              "cuda.peer.1.2.can_access\t1\ncuda.peer.1.2.enable.result\t0\n"
                              "cuda.peer.2.0.can_access\t1\ncuda.peer.2.0.not_tested\tGPU 2: its own proof failed (in context)\n"
                              "cuda.peer.2.1.can_access\t1\ncuda.peer.2.1.not_tested\tGPU 2: its own proof failed (in context)\n"
                              "cuda.peer.1.stuck\tpeer-copy:2\nstage\tnvml-wait\nend\tok\n"),
                        facts, "helper did not get there");
  CHECK(facts.get_int("p2p.pairs_proven"_fact) == 1);
  CHECK(facts.get_int("p2p.pairs_failed_count"_fact) == 0);
  CHECK(facts.get_int("p2p.pairs_not_tested_count"_fact) == 5);
  CHECK(status_of(facts, 1, 2) == "not-tested");
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.1.2.detail")) == "hung (still in peer-copy:2 at the deadline)");
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.1.0.detail")) ==
        "not reached: GPU 1's pairs hung before it (in peer-copy:2)");
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.0.2.detail")) ==
        "GPU 2: its own proof failed (in context) (GPU 2's context: 46 CUDA_ERROR_DEVICE_UNAVAILABLE)");
}

TEST_CASE("peer pairs: no pair has access at all", "[probes][peer_pairs]") {
  gd::FactSet facts;
  gd::record_peer_pairs(parse("gpudoctor-helper\t1.3\ncuda.dlopen\tok\ncuda.init.result\t0\ncuda.device_count\t2\n"
                              "cuda.peer.scope\tall\ncuda.peer.gpus\t2\n"
                              "cuda.peer.0.1.can_access\t0\ncuda.peer.1.0.can_access\t0\nend\tok\n"),
                        facts, "helper did not get there");
  CHECK(facts.get_bool("p2p.no_access_at_all"_fact) == true);
  CHECK(facts.get_int("p2p.pairs_with_access"_fact) == 0);
  CHECK(facts.get_int("p2p.pairs_tested"_fact) == 0);
}

TEST_CASE("peer pairs: an enable failure and a copy error are failures with the call and code", "[probes][peer_pairs]") {
  gd::FactSet facts;
  gd::record_peer_pairs(parse("gpudoctor-helper\t1.3\ncuda.dlopen\tok\ncuda.init.result\t0\ncuda.device_count\t2\n"
                              "cuda.peer.scope\tall\ncuda.peer.gpus\t2\n"
                              "cuda.peer.0.1.can_access\t1\ncuda.peer.0.1.enable.result\t711\n"
                              "cuda.peer.1.0.can_access\t1\ncuda.peer.1.0.enable.result\t704\ncuda.peer.1.0.copy.result\t700\n"
                              "end\tok\n"),
                        facts, "helper did not get there");
  CHECK(status_of(facts, 0, 1) == "enable-failed");
  CHECK(status_of(facts, 1, 0) == "copy-failed");  // 704: already enabled counts as enabled
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.0.1.detail")) == "cuCtxEnablePeerAccess: 711 CUDA_ERROR_TOO_MANY_PEERS");
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.1.0.detail")) == "cuMemcpyPeer: 700 CUDA_ERROR_ILLEGAL_ADDRESS");
  CHECK(facts.get_int("p2p.pairs_failed_count"_fact) == 2);
}

}  // namespace GD_UNITY_ID
