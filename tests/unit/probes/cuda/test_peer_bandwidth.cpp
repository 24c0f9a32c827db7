// The pair bandwidth (--p2p-bandwidth, helper protocol 1.4): its reply lines parsed, and the
// p2p.* facts made of them beside the pair proof (probes/cuda/peer_bandwidth).
#include "probes/cuda/peer_bandwidth.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/cuda/helper_reply.hpp"
#include "probes/cuda/peer_pairs.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

// gpudoctor-cuda-helper 1.4 with --p2p-bandwidth on against the fake libcuda of 3 GPUs with
// FAKE_CUDA_PEER_GBPS=10 FAKE_CUDA_PEER_GBPS_2_1=1 FAKE_CUDA_PEER_CORRUPT_0_2=5, its pair lines
// as it wrote them (stage and .name lines left out): 0 -> 2 arrived corrupted and is not timed,
// 1 -> 2 found its turn gone (the budget spent), 2 -> 0 failed in a timed copy.
constexpr std::string_view k_three_gpus =
    "gpudoctor-helper\t1.4\n"
    "cuda.dlopen\tok\n"
    "cuda.init.result\t0\n"
    "cuda.device_count\t3\n"
    "cuda.peer.scope\tall\n"
    "cuda.peer.gpus\t3\n"
    "cuda.peer.bandwidth_bytes\t8388608\n"
    "cuda.peer.bandwidth_copies\t4\n"
    "cuda.device.0.pci_bus_id\t0000:18:00.0\n"
    "cuda.device.1.pci_bus_id\t0000:19:00.0\n"
    "cuda.device.2.pci_bus_id\t0000:1A:00.0\n"
    "cuda.peer.0.1.can_access\t1\ncuda.peer.0.1.enable.result\t0\ncuda.peer.0.1.copy.result\t0\n"
    "cuda.peer.0.1.sync.result\t0\ncuda.peer.0.1.readback.result\t0\ncuda.peer.0.1.check\tok\n"
    "cuda.peer.0.2.can_access\t1\ncuda.peer.0.2.enable.result\t0\ncuda.peer.0.2.copy.result\t0\n"
    "cuda.peer.0.2.sync.result\t0\ncuda.peer.0.2.readback.result\t0\ncuda.peer.0.2.check\twrong\n"
    "cuda.peer.0.2.check.index\t5\ncuda.peer.0.2.check.value\t0x3b7ae36a\ncuda.peer.0.2.check.expected\t0x3b7ae26a\n"
    "cuda.peer.1.0.can_access\t1\ncuda.peer.1.0.enable.result\t0\ncuda.peer.1.0.copy.result\t0\n"
    "cuda.peer.1.0.sync.result\t0\ncuda.peer.1.0.readback.result\t0\ncuda.peer.1.0.check\tok\n"
    "cuda.peer.1.2.can_access\t1\ncuda.peer.1.2.enable.result\t0\ncuda.peer.1.2.copy.result\t0\n"
    "cuda.peer.1.2.sync.result\t0\ncuda.peer.1.2.readback.result\t0\ncuda.peer.1.2.check\tok\n"
    "cuda.peer.2.0.can_access\t1\ncuda.peer.2.0.enable.result\t0\ncuda.peer.2.0.copy.result\t0\n"
    "cuda.peer.2.0.sync.result\t0\ncuda.peer.2.0.readback.result\t0\ncuda.peer.2.0.check\tok\n"
    "cuda.peer.2.1.can_access\t1\ncuda.peer.2.1.enable.result\t0\ncuda.peer.2.1.copy.result\t0\n"
    "cuda.peer.2.1.sync.result\t0\ncuda.peer.2.1.readback.result\t0\ncuda.peer.2.1.check\tok\n"
    "cuda.peer.0.1.bandwidth.copies\t4\n"
    "cuda.peer.0.1.bandwidth.elapsed_ns\t3355443\n"  // 4 x 8 MiB in 3.36 ms: 10.0 GB/s
    "cuda.peer.1.0.bandwidth.copies\t4\n"
    "cuda.peer.1.0.bandwidth.elapsed_ns\t3390000\n"  // 9.9 GB/s
    "cuda.peer.1.2.bandwidth.skipped\tthe bandwidth budget (2 s for all pairs) was spent\n"
    "cuda.peer.2.1.bandwidth.copies\t4\n"
    "cuda.peer.2.1.bandwidth.elapsed_ns\t33554432\n"  // 1.0 GB/s
    "cuda.peer.2.0.bandwidth.call\tcuMemcpyPeerAsync\n"
    "cuda.peer.2.0.bandwidth.result\t700\n"
    "cuda.peer.2.0.bandwidth.name\tCUDA_ERROR_ILLEGAL_ADDRESS\n"
    "end\tok\n";

gd::HelperReply parse(std::string_view text) {
  auto reply = gd::parse_helper_reply(text);
  REQUIRE(reply);
  return *reply;
}

gd::FactSet facts_of(std::string_view text) {
  gd::FactSet facts;
  gd::record_peer_pairs(parse(text), facts, "helper did not get there");
  return facts;
}

const gd::Fact* pair_fact(const gd::FactSet& facts, int a, int b) {
  return facts.find(gd::FactName::unchecked("p2p.pair." + std::to_string(a) + "." + std::to_string(b) + ".bandwidth_mb_per_s"));
}

/// Every p2p.* fact whose name holds "bandwidth": what a run without the flag must not have.
std::vector<std::string> bandwidth_facts(const gd::FactSet& facts) {
  std::vector<std::string> names;
  for (const auto& [name, fact] : facts.all()) {
    if (name.find("bandwidth") != std::string::npos) names.push_back(name);
  }
  return names;
}

}  // namespace

TEST_CASE("helper reply 1.4: the bandwidth lines of the pairs, their sizes, a skip and a failed call",
          "[probes][peer_bandwidth]") {
  gd::HelperReply reply = parse(k_three_gpus);
  CHECK(reply.protocol_minor == 4);
  CHECK(reply.peer_bandwidth_bytes == 8388608);
  CHECK(reply.peer_bandwidth_copies == 4);
  REQUIRE(reply.peer_pairs.size() == 6);
  const gd::HelperPeerPair& first = reply.peer_pairs[0];  // 0 -> 1
  CHECK(first.bandwidth_copies == 4);
  CHECK(first.bandwidth_elapsed_ns == 3355443);
  CHECK_FALSE(first.bandwidth_skipped);
  CHECK(reply.peer_pairs[3].bandwidth_skipped == "the bandwidth budget (2 s for all pairs) was spent");  // 1 -> 2
  const gd::HelperPeerPair& failed = reply.peer_pairs[4];  // 2 -> 0
  CHECK(failed.bandwidth_call == "cuMemcpyPeerAsync");
  CHECK(failed.bandwidth.result == 700);
  CHECK(failed.bandwidth.name == "CUDA_ERROR_ILLEGAL_ADDRESS");
  CHECK(failed.check == "ok");  // the bandwidth's .result is not the pair's copy
  CHECK(failed.copy.result == 0);
  CHECK(reply.failed_values.empty());
}

TEST_CASE("helper reply 1.4: a GPU's copy buffer that could not be allocated", "[probes][peer_bandwidth]") {
  gd::HelperReply reply = parse("gpudoctor-helper\t1.4\ncuda.peer.scope\tall\ncuda.peer.bandwidth_bytes\t8388608\n"
                                "cuda.peer.1.bandwidth_buffer.result\t2\n"
                                "cuda.peer.1.bandwidth_buffer.name\tCUDA_ERROR_OUT_OF_MEMORY\nend\tok\n");
  REQUIRE(reply.peer_sources.size() == 1);
  CHECK(reply.peer_sources[0].index == 1);
  CHECK(reply.peer_sources[0].bandwidth_buffer.result == 2);
  CHECK(reply.peer_sources[0].bandwidth_buffer.name == "CUDA_ERROR_OUT_OF_MEMORY");
}

TEST_CASE("peer bandwidth: MB/s of copies and their time, and what is not a measurement", "[probes][peer_bandwidth]") {
  CHECK(gd::peer_bandwidth_mb_per_s(8388608, 4, 3355443) == 10000);  // bytes per ns is GB/s
  CHECK(gd::peer_bandwidth_mb_per_s(8388608, 1, 8388608) == 1000);
  CHECK(gd::peer_bandwidth_mb_per_s(8388608, 4, 0) == std::nullopt);
  CHECK(gd::peer_bandwidth_mb_per_s(8388608, 0, 1000) == std::nullopt);
  CHECK(gd::peer_bandwidth_mb_per_s(-1, 4, 1000) == std::nullopt);
  CHECK(gd::peer_bandwidth_mb_per_s(INT64_MAX, INT64_MAX, 1) == std::nullopt);  // no overflow into a figure
}

TEST_CASE("peer bandwidth: per pair figures, min, median, max and the slowest pair; reasons for the rest",
          "[probes][peer_bandwidth]") {
  gd::FactSet facts = facts_of(k_three_gpus);
  CHECK(facts.get_int(gd::FactName::unchecked("p2p.pair.0.1.bandwidth_mb_per_s")) == 10000);
  CHECK(facts.get_int(gd::FactName::unchecked("p2p.pair.1.0.bandwidth_mb_per_s")) == 9898);
  CHECK(facts.get_int(gd::FactName::unchecked("p2p.pair.2.1.bandwidth_mb_per_s")) == 1000);
  CHECK(facts.get_int("p2p.bandwidth_copy_bytes"_fact) == 8388608);
  CHECK(facts.get_int("p2p.bandwidth_pairs_measured"_fact) == 3);
  CHECK(facts.get_int("p2p.bandwidth_mb_per_s_min"_fact) == 1000);
  CHECK(facts.get_int("p2p.bandwidth_mb_per_s_median"_fact) == 9898);
  CHECK(facts.get_int("p2p.bandwidth_mb_per_s_max"_fact) == 10000);
  CHECK(facts.get_string("p2p.bandwidth_slowest_pair"_fact) == "GPU 2 (0000:1A:00.0) -> GPU 1 (0000:19:00.0)");

  // The corrupted pair is not proven: no figure expected (absent), the proven ones without a figure unknown.
  const gd::Fact* corrupted = pair_fact(facts, 0, 2);
  REQUIRE(corrupted);
  CHECK(corrupted->state == gd::FactState::absent);
  const gd::Fact* skipped = pair_fact(facts, 1, 2);
  REQUIRE(skipped);
  CHECK(skipped->state == gd::FactState::unknown);
  CHECK(skipped->reason == "the bandwidth budget (2 s for all pairs) was spent");
  const gd::Fact* failed = pair_fact(facts, 2, 0);
  REQUIRE(failed);
  CHECK(failed->state == gd::FactState::unknown);
  CHECK(failed->reason == "cuMemcpyPeerAsync failed: 700 CUDA_ERROR_ILLEGAL_ADDRESS");
  CHECK(facts.get_int("p2p.bandwidth_not_measured_count"_fact) == 2);
  const gd::Fact* not_measured = facts.find("p2p.bandwidth_not_measured"_fact);
  REQUIRE(not_measured);
  CHECK(std::get<std::vector<std::string>>(not_measured->value) ==
        std::vector<std::string>{
            "GPU 1 (0000:19:00.0) -> GPU 2 (0000:1A:00.0): the bandwidth budget (2 s for all pairs) was spent",
            "GPU 2 (0000:1A:00.0) -> GPU 0 (0000:18:00.0): cuMemcpyPeerAsync failed: 700 CUDA_ERROR_ILLEGAL_ADDRESS"});
  // The proof's verdicts are the proof's: a failed timed copy does not fail the pair.
  CHECK(facts.get_string(gd::FactName::unchecked("p2p.pair.2.0.status")) == "proven");
  CHECK(facts.get_int("p2p.pairs_proven"_fact) == 5);
}

TEST_CASE("peer bandwidth: a hang in a pair's timed copies names it; the source's later pairs were not reached",
          "[probes][peer_bandwidth]") {
  std::string text(k_three_gpus.substr(0, k_three_gpus.find("cuda.peer.0.1.bandwidth.copies")));
  text += "cuda.peer.1.0.bandwidth.copies\t4\ncuda.peer.1.0.bandwidth.elapsed_ns\t3390000\n"
          "cuda.peer.0.stuck\tpeer-bandwidth:1\ncuda.peer.2.crashed\tSIGSEGV in peer-bandwidth:1\nend\tok\n";
  gd::FactSet facts = facts_of(text);
  const gd::Fact* hung = pair_fact(facts, 0, 1);
  REQUIRE(hung);
  CHECK(hung->reason == "hung (still in peer-bandwidth:1 at the deadline)");
  const gd::Fact* crashed = pair_fact(facts, 2, 1);
  REQUIRE(crashed);
  CHECK(crashed->reason == "the driver crashed in its timed copies (SIGSEGV in peer-bandwidth:1)");
  const gd::Fact* before = pair_fact(facts, 2, 0);
  REQUIRE(before);
  CHECK(before->reason == "not timed: the driver crashed in GPU 2's thread (SIGSEGV in peer-bandwidth:1)");
  const gd::Fact* cut = pair_fact(facts, 1, 2);
  REQUIRE(cut);
  CHECK(cut->reason == "the helper's reply ends before its timed copies");
  CHECK(facts.get_int("p2p.bandwidth_pairs_measured"_fact) == 1);
  CHECK(facts.get_int("p2p.bandwidth_mb_per_s_min"_fact) == 9898);
}

TEST_CASE("peer bandwidth: no timed pair at all leaves the figures absent", "[probes][peer_bandwidth]") {
  gd::FactSet facts = facts_of(
      "gpudoctor-helper\t1.4\ncuda.dlopen\tok\ncuda.init.result\t0\ncuda.device_count\t2\n"
      "cuda.peer.scope\tall\ncuda.peer.gpus\t2\ncuda.peer.bandwidth_bytes\t8388608\n"
      "cuda.peer.0.bandwidth_buffer.result\t2\n"
      "cuda.peer.0.1.can_access\t1\ncuda.peer.0.1.enable.result\t0\ncuda.peer.0.1.copy.result\t0\n"
      "cuda.peer.0.1.sync.result\t0\ncuda.peer.0.1.readback.result\t0\ncuda.peer.0.1.check\tok\n"
      "cuda.peer.0.1.bandwidth.skipped\tGPU 0: its 8 MiB copy buffer could not be allocated (2)\n"
      "cuda.peer.1.0.can_access\t0\nend\tok\n");
  CHECK(facts.get_int("p2p.bandwidth_pairs_measured"_fact) == 0);
  const gd::Fact* min = facts.find("p2p.bandwidth_mb_per_s_min"_fact);
  REQUIRE(min);
  CHECK(min->state == gd::FactState::absent);
  CHECK(pair_fact(facts, 0, 1)->reason == "GPU 0: its 8 MiB copy buffer could not be allocated (2)");
  CHECK(pair_fact(facts, 1, 0)->state == gd::FactState::absent);  // no access: nothing to time
}

TEST_CASE("peer bandwidth: without --p2p-bandwidth, and from a 1.3 helper, no bandwidth fact at all",
          "[probes][peer_bandwidth]") {
  std::string without(k_three_gpus);
  for (std::string_view line : {"cuda.peer.bandwidth_bytes\t8388608\n", "cuda.peer.bandwidth_copies\t4\n"}) {
    without.erase(without.find(line), line.size());
  }
  without.erase(without.find("cuda.peer.0.1.bandwidth.copies"), without.find("end\tok") - without.find("cuda.peer.0.1.bandwidth.copies"));
  gd::FactSet facts = facts_of(without);
  CHECK(facts.get_int("p2p.pairs_proven"_fact) == 5);
  CHECK(bandwidth_facts(facts).empty());
  // A 1.3 helper never writes the request line: its reply, even with pair bandwidth lines in it,
  // makes no bandwidth fact either.
  std::string older(k_three_gpus);
  older.replace(older.find("gpudoctor-helper\t1.4"), std::string_view("gpudoctor-helper\t1.4").size(), "gpudoctor-helper\t1.3");
  older.erase(older.find("cuda.peer.bandwidth_bytes\t8388608\n"), std::string_view("cuda.peer.bandwidth_bytes\t8388608\n").size());
  gd::FactSet older_facts = facts_of(older);
  CHECK(older_facts.get_int("p2p.pairs_proven"_fact) == 5);  // the pair proof is read as before
  CHECK(bandwidth_facts(older_facts).empty());
}

}  // namespace GD_UNITY_ID
