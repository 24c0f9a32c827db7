// The pair bandwidth (--p2p-bandwidth on, src/helper/cuda_peer_bandwidth.c) run through this
// host's loader against the fake libcuda, whose peer copies take the time a rate set per pair
// needs (FAKE_CUDA_PEER_GBPS): the figure the helper measures must be that rate, give or take the
// test machine's scheduling (never above it: the fake waits the time out exactly).
#include <catch2/catch.hpp>

#include <string>

#include "helper_run.hpp"
#include "probes/cuda/peer_bandwidth.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using Status = gd::HelperOutcome::Status;
using gd::test::fake_request;
using gd::test::parsed;
using gd::test::run;
using gd::test::ScopedEnv;

namespace {

gd::HelperRequest bandwidth_request() {
  gd::HelperRequest request = fake_request();
  request.p2p_bandwidth = true;
  return request;
}

/// The measured MB/s of a pair, 0 when it has none.
std::int64_t mb_per_s(const gd::HelperReply& reply, const gd::HelperPeerPair& pair) {
  if (!reply.peer_bandwidth_bytes || !pair.bandwidth_copies || !pair.bandwidth_elapsed_ns) return 0;
  return gd::peer_bandwidth_mb_per_s(*reply.peer_bandwidth_bytes, *pair.bandwidth_copies, *pair.bandwidth_elapsed_ns)
      .value_or(0);
}

}  // namespace

TEST_CASE("pair bandwidth: each proven pair timed at the rate its copies take, the slow pair slowest",
          "[helper][peer][bandwidth]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "3");
  ScopedEnv rate("FAKE_CUDA_PEER_GBPS", "16");
  ScopedEnv slow("FAKE_CUDA_PEER_GBPS_2_1", "1");
  gd::HelperOutcome outcome = run(bandwidth_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  CHECK(reply.protocol_minor == 4);
  CHECK(reply.peer_bandwidth_bytes == 8 << 20);
  CHECK(reply.peer_bandwidth_copies == 4);
  REQUIRE(reply.peer_pairs.size() == 6);
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    INFO(pair.source << " -> " << pair.destination);
    CHECK(pair.check == "ok");
    REQUIRE(pair.bandwidth_copies.has_value());
    CHECK(*pair.bandwidth_copies >= 1);
    CHECK(*pair.bandwidth_copies <= 4);
    std::int64_t got = mb_per_s(reply, pair);
    std::int64_t set = pair.source == 2 && pair.destination == 1 ? 1000 : 16000;
    INFO("measured " << got << " MB/s, the fake's copies take " << set << " MB/s");
    CHECK(got <= set * 102 / 100);  // the fake never copies faster than its rate
    CHECK(got >= set / 4);          // a loaded test machine may stretch the time, not by 4 x
  }
  // 1 GB/s: a copy of 8 MiB takes 8.4 ms, 4 of them fit in the 100 ms a pair may take.
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    if (pair.source == 2 && pair.destination == 1) CHECK(pair.bandwidth_copies == 4);
  }
}

TEST_CASE("pair bandwidth: a pair whose copy takes long is timed with fewer copies, within its bound",
          "[helper][peer][bandwidth]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  ScopedEnv slow("FAKE_CUDA_PEER_GBPS_0_1", "0.25");  // 8 MiB in 34 ms: 2 timed copies fit in 100 ms
  gd::HelperOutcome outcome = run(bandwidth_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  REQUIRE(reply.peer_pairs.size() == 2);
  const gd::HelperPeerPair& pair = reply.peer_pairs[0];
  REQUIRE(pair.destination == 1);
  REQUIRE(pair.bandwidth_copies.has_value());
  CHECK(*pair.bandwidth_copies <= 2);
  CHECK(mb_per_s(reply, pair) <= 255);
  CHECK(mb_per_s(reply, pair) >= 60);
}

TEST_CASE("pair bandwidth: off by default, not a line of it", "[helper][peer][bandwidth]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "3");
  gd::HelperOutcome outcome = run(fake_request());
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.reply.find("bandwidth") == std::string::npos);
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.peer_pairs.size() == 6);
  CHECK_FALSE(reply.peer_bandwidth_bytes.has_value());
}

TEST_CASE("pair bandwidth: a GPU without 8 MiB free skips its pairs with the reason, the others are timed",
          "[helper][peer][bandwidth]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "3");
  ScopedEnv full("FAKE_CUDA_ALLOC_MAX_BYTES_1", "1048576");  // its own proof's 1 MiB still fits
  gd::HelperOutcome outcome = run(bandwidth_request());
  REQUIRE(outcome.status == Status::finished);
  gd::HelperReply reply = parsed(outcome);
  REQUIRE(reply.peer_sources.size() == 3);
  CHECK(reply.peer_sources[1].bandwidth_buffer.result == 2);
  CHECK(reply.peer_sources[1].bandwidth_buffer.name == "CUDA_ERROR_OUT_OF_MEMORY");
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    INFO(pair.source << " -> " << pair.destination);
    CHECK(pair.check == "ok");
    if (pair.source == 1 || pair.destination == 1) {
      CHECK(pair.bandwidth_skipped == "GPU 1: its 8 MiB copy buffer could not be allocated (2)");
    } else {
      CHECK(pair.bandwidth_copies.has_value());
    }
  }
}

TEST_CASE("pair bandwidth: a timed-copy call that fails is named with its result; the next pairs still get their turn",
          "[helper][peer][bandwidth]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "3");
  ScopedEnv event("FAKE_CUDA_EVENT_RESULT", "2");  // cuEventCreate: CUDA_ERROR_OUT_OF_MEMORY
  gd::HelperRequest request = bandwidth_request();
  request.timeout_ms = 5000;
  gd::HelperOutcome outcome = run(request);
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.duration_ms < 2000);  // a failed pair gives its turn back
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  REQUIRE(reply.peer_pairs.size() == 6);
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    INFO(pair.source << " -> " << pair.destination);
    CHECK(pair.check == "ok");  // the proof's own copy is not the timed one
    CHECK(pair.bandwidth_call == "cuEventCreate");
    CHECK(pair.bandwidth.result == 2);
    CHECK(pair.bandwidth.name == "CUDA_ERROR_OUT_OF_MEMORY");
    CHECK_FALSE(pair.bandwidth_copies.has_value());
  }
  for (const gd::HelperPeerSource& source : reply.peer_sources) CHECK(source.steps.last == "done");
}

TEST_CASE("pair bandwidth: a crash in one pair's timed copies neither hangs the others nor keeps the turn",
          "[helper][peer][bandwidth]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "3");
  ScopedEnv crash("FAKE_CUDA_CRASH_IN", "cuEventRecord");
  ScopedEnv only("FAKE_CUDA_FAULT_DEVICE", "0");
  gd::HelperRequest request = bandwidth_request();
  request.timeout_ms = 5000;
  gd::HelperOutcome outcome = run(request);
  REQUIRE(outcome.status == Status::finished);
  CHECK(outcome.duration_ms < 2000);  // nobody waited for the crashed holder's turn
  gd::HelperReply reply = parsed(outcome);
  CHECK(reply.complete);
  REQUIRE(reply.peer_sources.size() == 3);
  REQUIRE(reply.peer_sources[0].crashed.has_value());
  CHECK(reply.peer_sources[0].crashed->starts_with("SIGSEGV in peer-bandwidth:"));
  for (const gd::HelperPeerPair& pair : reply.peer_pairs) {
    INFO(pair.source << " -> " << pair.destination);
    CHECK(pair.check == "ok");  // every pair was proven before its source timed anything
    if (pair.source != 0) CHECK(pair.bandwidth_copies.has_value());
  }
}

}  // namespace GD_UNITY_ID
