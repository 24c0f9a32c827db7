#!/usr/bin/env bash
# On the H200 device (issue 4 proof): the healthy report with the ML stack, its capture, the
# fat-binary scan of libtorch_cuda.so and the whole-run times. Writes to $OUT.
set -u
bin=build/gpudoctor
out=${OUT:-/tmp/out}
mkdir -p "$out"
"$bin" >"$out/healthy.txt" 2>&1; echo "exit $?" >>"$out/healthy.txt"
"$bin" -v 2>/dev/null | grep -E '^  (py|torch|wheels|ml|toolkit)\.' >"$out/ml-facts.txt"
"$bin" --json >"$out/healthy.json" 2>/dev/null
ls -la "$out/healthy.json" >>"$out/ml-facts.txt"
torch=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/torch 2>/dev/null | head -n 1)
FATBIN_LIB=$torch/lib/libtorch_cuda.so bash bench/run.sh "$bin" 21 build/peak_rss >"$out/bench.txt" 2>&1
