#!/usr/bin/env bash
# On the H200 device, the proof runs for the ML stack (issue 4) and the host layers (issue 3)
# with the final binary. Writes the reports and the benchmark to $OUT.
set -u
bin=$PWD/build/gpudoctor
out=${OUT:-/tmp/out}
mkdir -p "$out"
run() {  # name, command...: the report and its exit code
  local name=$1; shift
  "$@" >"$out/$name.txt" 2>&1
  echo "exit $?" >>"$out/$name.txt"
}
run healthy "$bin"
"$bin" --json >"$out/healthy.json" 2>/dev/null
ls -la "$out/healthy.json" >"$out/sizes.txt"
torch=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/torch | head -n 1)
# A real positive: CUDA_HOME names a folder without a toolkit, so an extension build finds no nvcc.
run cuda-home-empty env CUDA_HOME=/opt/no-such-toolkit "$bin"
# A real negative: the image's own CUDA 13.0 libraries on LD_LIBRARY_PATH, the same release as the wheels.
run ld-cuda13 env LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64 "$bin" --no-cuda
# --extension on real CUDA libraries: torch's linalg library and cuBLASLt.
run extensions "$bin" --no-cuda --extension "$torch/lib/libtorch_cuda_linalg.so" \
  --extension "$(readlink -f /usr/local/cuda/lib64/libcublasLt.so)"
# Issue 3's scenario again: /dev/null over /dev/nvidia-uvm in a private mount namespace.
run uvm-null unshare -m sh -c "mount --bind /dev/null /dev/nvidia-uvm && $bin"
FATBIN_LIB=$torch/lib/libtorch_cuda.so bash bench/run.sh "$bin" 21 build/peak_rss >"$out/bench.txt" 2>&1
