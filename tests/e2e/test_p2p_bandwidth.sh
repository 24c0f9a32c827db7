# The optional pair bandwidth (issue 26 item 1: "the bandwidth figure per pair is optional behind a
# flag"): --p2p-bandwidth through the real binary against the fake libcuda of 2 and 8 GPUs, whose
# peer copies take the time a rate set per pair needs (FAKE_CUDA_PEER_GBPS): the figures on the
# peer-to-peer line, in the facts and in the metrics are that rate (never above it, a loaded test
# machine may stretch the time), the slow pair is named; without the flag nothing of it appears.
source "$(dirname "$0")/lib.sh"

[ -f "$FAKES/libcuda.so.1" ] || { echo "SKIP: fakes not built in $FAKES"; exit 125; }
[ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ] || { echo "SKIP: no glibc loader on this machine"; exit 125; }
FAKE_ARGS=(--libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1")
unset CUDA_VISIBLE_DEVICES LD_PRELOAD

# fact_int NAME FACT: the integer value of a present fact of the --json run NAME, else "none".
fact_int() {
  python3 -c 'import json,sys
f = json.load(open(sys.argv[1]))["facts"].get(sys.argv[2])
print(f["value"] if f and f.get("state") == "present" else "none")' "$TMP/$1.out" "$2"
}
# expect_between NAME FACT LOW HIGH: the fact's integer is in [LOW, HIGH].
expect_between() {
  checks=$((checks + 1))
  local got
  got=$(fact_int "$1" "$2")
  { [ "$got" != none ] && [ "$got" -ge "$3" ] && [ "$got" -le "$4" ]; } || fail "$1: $2 is $got, expected $3..$4"
}

# 2 GPUs, 12 GB/s one way and 3 GB/s the other: both figures, the slow one named.
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_PEER_GBPS=12 FAKE_CUDA_PEER_GBPS_1_0=3 run_gd two "${FAKE_ARGS[@]}" --p2p-bandwidth
expect_out two "^\[(ok|✓)\] Peer-to-peer: 2 pairs proven \(copy-verify\), bandwidth [0-9]+\.[0-9] GB/s min, [0-9]+\.[0-9] GB/s median \(2 pairs\)$"
expect_out two "slowest pair: GPU 1 \(0000:19:00\.0\) -> GPU 0 \(0000:18:00\.0\): [0-9]+\.[0-9] GB/s"
expect_no_out two "^(error|warning|info) \[p2p\."
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_PEER_GBPS=12 FAKE_CUDA_PEER_GBPS_1_0=3 run_gd twojson "${FAKE_ARGS[@]}" --p2p-bandwidth --json
expect_between twojson p2p.pair.0.1.bandwidth_mb_per_s 3000 12240
expect_between twojson p2p.pair.1.0.bandwidth_mb_per_s 750 3060
expect_between twojson p2p.bandwidth_mb_per_s_min 750 3060
expect_fact twojson p2p.bandwidth_slowest_pair '"GPU 1 (0000:19:00.0) -> GPU 0 (0000:18:00.0)"'
expect_fact twojson p2p.bandwidth_pairs_measured 2
expect_fact twojson p2p.bandwidth_copy_bytes 8388608

# 8 GPUs, 56 pairs: each timed, one slow pair the smallest figure; the run stays bounded.
start=$(date +%s%N)
FAKE_CUDA_DEVICE_COUNT=8 FAKE_CUDA_PEER_GBPS=40 FAKE_CUDA_PEER_GBPS_5_2=2 run_gd eight "${FAKE_ARGS[@]}" --p2p-bandwidth --json
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
checks=$((checks + 1))
# 55 pairs of 6 copies at 40 GB/s (1.3 ms each) and one of 6 at 2 GB/s (25 ms): ~0.5 s of copies.
[ "$elapsed_ms" -le 5000 ] || fail "eight: the run took ${elapsed_ms} ms"
expect_fact eight p2p.pairs_proven 56
expect_fact eight p2p.bandwidth_pairs_measured 56
expect_fact eight p2p.bandwidth_not_measured_count 0
expect_between eight p2p.pair.5.2.bandwidth_mb_per_s 500 2040
expect_between eight p2p.pair.2.5.bandwidth_mb_per_s 2100 40800
expect_between eight p2p.bandwidth_mb_per_s_median 10000 40800
expect_fact eight p2p.bandwidth_slowest_pair '"GPU 5 (0000:1D:00.0) -> GPU 2 (0000:1A:00.0)"'
FAKE_CUDA_DEVICE_COUNT=8 FAKE_CUDA_PEER_GBPS=40 run_gd eightprom "${FAKE_ARGS[@]}" --p2p-bandwidth --format prometheus
checks=$((checks + 1))
samples=$(grep -c '^gpudoctor_p2p_pair_bandwidth_bytes_per_second{a="[0-7]",b="[0-7]"} [0-9]*$' "$TMP/eightprom.out")
[ "$samples" = 56 ] || fail "eightprom: $samples bandwidth samples, expected 56"

# Without the flag: the same pairs, not a word of bandwidth (the family is declared, without a sample).
FAKE_CUDA_DEVICE_COUNT=8 FAKE_CUDA_PEER_GBPS=40 run_gd default "${FAKE_ARGS[@]}" -v
expect_out default "^\[(ok|✓)\] Peer-to-peer: 56 pairs proven \(copy-verify\)$"
expect_no_out default "bandwidth"
FAKE_CUDA_DEVICE_COUNT=8 run_gd defaultprom "${FAKE_ARGS[@]}" --format prometheus
expect_out defaultprom "^# TYPE gpudoctor_p2p_pair_bandwidth_bytes_per_second gauge$"
expect_no_out defaultprom "^gpudoctor_p2p_pair_bandwidth_bytes_per_second\{"

# One GPU: no peers, nothing to time, no bandwidth line.
FAKE_CUDA_DEVICE_COUNT=1 run_gd one "${FAKE_ARGS[@]}" --p2p-bandwidth
expect_out one "^\[(ok|✓)\] Peer-to-peer: 1 GPU: no peers$"
expect_no_out one "bandwidth"

# A GPU whose memory another job holds (all but 1 MiB): its pairs are proven, not timed, with the reason.
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_ALLOC_MAX_BYTES_1=1048576 run_gd full "${FAKE_ARGS[@]}" --p2p-bandwidth
expect_out full "Peer-to-peer: 2 pairs proven \(copy-verify\), bandwidth not measured$"
expect_out full "bandwidth not measured: GPU 0 \(0000:18:00\.0\) -> GPU 1 \(0000:19:00\.0\): GPU 1: its 8 MiB copy buffer could not be allocated \(2\)"
expect_no_out full "^(error|warning|info) \[p2p\."

finish
