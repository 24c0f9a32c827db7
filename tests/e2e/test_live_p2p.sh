# Peer-to-peer proven by data (issue 26 item 1): the helper's pair proof against the fake libcuda
# (tests/fakes: N GPUs, peer access per pair, a pair whose copies are dropped or corrupted while
# every call succeeds, an enable that fails, a hang in a peer step), read back through the real
# binary: the p2p overview line, its rules, and the helper's own lines.
source "$(dirname "$0")/lib.sh"

[ -f "$FAKES/libcuda.so.1" ] || { echo "SKIP: fakes not built in $FAKES"; exit 125; }
[ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ] || { echo "SKIP: no glibc loader on this machine"; exit 125; }
FAKE_ARGS=(--libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1")
HELPER=$FAKES/../gpudoctor-cuda-helper
unset CUDA_VISIBLE_DEVICES LD_PRELOAD

# helper_reply NAME: the helper alone, its reply lines in $TMP/NAME.reply.
helper_reply() {
  "$HELPER" --reply-fd 3 "${FAKE_ARGS[@]}" --deadline-ms 3000 3>"$TMP/$1.reply" >/dev/null 2>&1
}
reply_has() {  # NAME PATTERN
  checks=$((checks + 1))
  grep -qE -- "$2" "$TMP/$1.reply" || fail "$1: the reply lacks /$2/"
}
reply_count() {  # NAME PATTERN EXPECTED
  checks=$((checks + 1))
  local got
  got=$(grep -cE -- "$2" "$TMP/$1.reply")
  [ "$got" = "$3" ] || fail "$1: /$2/ in $got reply lines, expected $3"
}

# 2, 4 and 8 GPUs: every ordered pair proven, no P2P finding.
for n in 2 4 8; do
  pairs=$((n * (n - 1)))
  FAKE_CUDA_DEVICE_COUNT=$n run_gd all$n "${FAKE_ARGS[@]}"
  expect_out all$n "^\[(ok|✓)\] Peer-to-peer: $pairs pairs proven \(copy-verify\)$"
  expect_no_out all$n "^(error|warning|info) \[p2p\."
done
if [ -x "$HELPER" ]; then
  FAKE_CUDA_DEVICE_COUNT=8 helper_reply all8
  reply_has all8 $'^gpudoctor-helper\t1\\.4$'  # 1.4: the pair bandwidth lines, only with --p2p-bandwidth
  reply_has all8 $'^cuda\\.peer\\.scope\tall$'
  reply_count all8 $'^cuda\\.peer\\.[0-9]\\.[0-9]\\.check\tok$' 56
  reply_count all8 $'^nvml\\.peer\\.[0-9]\\.[0-9]\\.read\t0$' 56
  # One GPU: not a single pair line, from CUDA or from NVML.
  FAKE_CUDA_DEVICE_COUNT=1 helper_reply one
  reply_count one '^(cuda|nvml)\.peer\.' 0
  reply_has one $'^end\tok$'
else
  skip "no helper binary next to the fakes ($HELPER)"
fi

# One GPU: "no peers", no P2P finding at all.
FAKE_CUDA_DEVICE_COUNT=1 run_gd one "${FAKE_ARGS[@]}"
expect_out one "^\[(ok|✓)\] Peer-to-peer: 1 GPU: no peers$"
expect_no_out one "\[p2p\."

# A dropped pair and a corrupted pair, both GPUs named; the other pairs stay proven.
FAKE_CUDA_DEVICE_COUNT=4 FAKE_CUDA_PEER_DROP_0_2=1 FAKE_CUDA_PEER_CORRUPT_3_1=77 run_gd wrong "${FAKE_ARGS[@]}"
expect_rc wrong 1
expect_out wrong "Peer-to-peer: 10 of 12 pairs proven \(copy-verify\), 2 data wrong"
expect_out wrong "^error \[p2p\.copy-data-wrong\]"
expect_out wrong "GPU 0 \(0000:18:00\.0\) -> GPU 2 \(0000:1A:00\.0\): element 0 is 0x0badf00d, expected 0x5eed0000: the copy never arrived"
expect_out wrong "GPU 3 \(0000:1B:00\.0\) -> GPU 1 \(0000:19:00\.0\): element 77 is 0x[0-9a-f]{8}, expected 0x[0-9a-f]{8}: the copy arrived corrupted"
expect_out wrong "NCCL_P2P_DISABLE=1"

# An enable that fails on a pair that claims access.
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_PEER_ENABLE_RESULT_1_0=711 run_gd enable "${FAKE_ARGS[@]}"
expect_out enable "Peer-to-peer: 1 of 2 pairs proven \(copy-verify\), 1 enable failed"
expect_out enable "^warning \[p2p\.peer-enable-fails\]"
expect_out enable "GPU 1 \(0000:19:00\.0\) -> GPU 0 \(0000:18:00\.0\): cuCtxEnablePeerAccess: 711 CUDA_ERROR_TOO_MANY_PEERS"
expect_no_out enable "\[p2p\.copy-data-wrong\]"

# No pair has access: what NCCL does instead, as info.
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_PEER_ACCESS=0 run_gd noaccess "${FAKE_ARGS[@]}"
expect_out noaccess "Peer-to-peer: 2 GPUs, no pair has peer access \(NCCL goes through host memory\)"
expect_out noaccess "^info \[p2p\.no-peer-access\]"
expect_no_out noaccess "^(error|warning) \[p2p\."

# A hang in a peer step is contained: GPU 1's copy to GPU 2 hangs, its pairs are not tested with
# the reason, every GPU keeps its own proof, the other pairs are proven, and the run ends in time.
start=$(date +%s)
FAKE_CUDA_DEVICE_COUNT=3 FAKE_CUDA_HANG_IN=cuMemcpyPeer FAKE_CUDA_FAULT_DEVICE=1 run_gd hang "${FAKE_ARGS[@]}" --cuda-timeout 2
elapsed=$(($(date +%s) - start))
checks=$((checks + 1))
[ "$elapsed" -le 10 ] || fail "hang case took ${elapsed}s with --cuda-timeout 2"
expect_out hang "Peer-to-peer: 4 of 6 pairs proven \(copy-verify\), 2 not tested"
expect_out hang "not tested: GPU 1 \(0000:19:00\.0\) -> GPU 2 \(0000:1A:00\.0\): hung \(still in peer-copy:2 at the deadline\)"
expect_out hang "GPU 2: NVIDIA H200 .* kernel OK"
expect_no_out hang "\[cuda\.gpu-stuck\]"
expect_no_out hang "^(error|warning) \[p2p\."

# A crash in a peer step is contained the same way.
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_CRASH_IN=cuCtxEnablePeerAccess FAKE_CUDA_FAULT_DEVICE=0 run_gd crash "${FAKE_ARGS[@]}"
expect_out crash "Peer-to-peer: 1 of 2 pairs proven \(copy-verify\), 1 not tested"
expect_out crash "the driver crashed in this pair's step \(SIGSEGV in peer-enable:1\)"

# A shared node: another job holds GPU 1 in EXCLUSIVE_PROCESS mode. Its pairs are not tested, with
# the reason; no P2P finding.
FAKE_CUDA_DEVICE_COUNT=2 FAKE_CUDA_CONTEXT_RESULT_1=46 FAKE_NVML_COMPUTE_MODE_1=3 FAKE_NVML_PROCESSES_1=4242 \
  run_gd busy "${FAKE_ARGS[@]}"
expect_out busy "not tested: GPU 0 \(0000:18:00\.0\) -> GPU 1 \(0000:19:00\.0\): GPU 1: its own proof failed \(in context\) \(GPU 1's context: 46 CUDA_ERROR_DEVICE_UNAVAILABLE\)"
expect_no_out busy "\[p2p\."

# CUDA_VISIBLE_DEVICES naming one GPU of eight: CUDA sees one, no pairs, no P2P finding.
FAKE_CUDA_DEVICE_COUNT=1 FAKE_NVML_DEVICE_COUNT=8 CUDA_VISIBLE_DEVICES=0 run_gd cvd "${FAKE_ARGS[@]}"
expect_out cvd "Peer-to-peer: 1 GPU: no peers"
expect_no_out cvd "\[p2p\."

finish
