#!/usr/bin/env bash
# The parallel proof with the project's fake libcuda (issue 13): 1, 8 and 64 GPUs whose contexts
# take 200 ms each, 21 interleaved runs of the whole gpudoctor, medians side by side. Proven one
# after another, 8 GPUs would take 8 x 200 ms; in parallel the run should stay near one GPU's.
#   bash bench/fake_gpus.sh [build]
set -u
B=${1:-build}
F=$B/helper/fakes
args="--libcuda $F/libcuda.so.1 --libnvml $F/libnvidia-ml.so.1 --json --no-capture"
run() { echo "env FAKE_CUDA_CONTEXT_DELAY_MS=200 FAKE_CUDA_DEVICE_COUNT=$1 FAKE_NVML_DEVICE_COUNT=$1 $B/gpudoctor $args"; }
python3 "$(dirname "$0")/interleaved.py" 21 "1-gpu=$(run 1)" "8-gpus=$(run 8)" "64-gpus=$(run 64)" 2>/dev/null
for n in 1 8 64; do
  printf "peak RSS with %s GPU(s) " "$n"
  FAKE_CUDA_CONTEXT_DELAY_MS=200 FAKE_CUDA_DEVICE_COUNT=$n FAKE_NVML_DEVICE_COUNT=$n "$B/peak_rss" "$B/gpudoctor" $args | sed "s/^/KiB, ms: /"
done
