#!/usr/bin/env bash
# What the pair proof (issue 26 item 1) adds to the whole run, with the project's fake libcuda:
# 2, 4 and 8 GPUs, each with the pair proof and with it turned off (GPUDOCTOR_HELPER_PEER=off, read
# by the helper for this benchmark only), 21 interleaved rounds, medians side by side. The
# budget: at most 50 ms more for 8 GPUs (56 ordered pairs). The fake's copies are memcpy on the
# host, so this measures the helper's own cost (threads waiting for their destinations, the
# reply's lines, gpudoctor reading them), not a copy engine.
#   bash bench/p2p_fake.sh [build] [rounds]
set -u
B=${1:-build}
R=${2:-21}
F=$B/helper/fakes
args="--libcuda $F/libcuda.so.1 --libnvml $F/libnvidia-ml.so.1 --json --no-capture"
run() { echo "env FAKE_CUDA_DEVICE_COUNT=$1 FAKE_NVML_DEVICE_COUNT=$1 ${2:-} $B/gpudoctor $args ${3:-}"; }
# 8-gpus-p2p-bandwidth: --p2p-bandwidth (issue 26 item 1) on the same 8 fake GPUs, whose copies take
# no time here (FAKE_CUDA_PEER_GBPS unset): the cost of its machinery alone (8 MiB buffers, one
# pair at a time, 6 copies and 2 events per pair, the lines and facts of 56 pairs), not of copies.
python3 "$(dirname "$0")/interleaved.py" "$R" \
  "2-gpus=$(run 2)" "2-gpus-no-p2p=$(run 2 GPUDOCTOR_HELPER_PEER=off)" \
  "4-gpus=$(run 4)" "4-gpus-no-p2p=$(run 4 GPUDOCTOR_HELPER_PEER=off)" \
  "8-gpus=$(run 8)" "8-gpus-no-p2p=$(run 8 GPUDOCTOR_HELPER_PEER=off)" \
  "8-gpus-p2p-bandwidth=$(run 8 '' --p2p-bandwidth)" 2>/dev/null
