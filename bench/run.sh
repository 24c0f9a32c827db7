#!/usr/bin/env bash
# Whole-run benchmark of gpudoctor (median of N runs, warm cache):
#   gpudoctor --no-cuda   the host part alone (target: under 20 ms)
#   gpudoctor             a full run: host part + the CUDA helper (cuInit, every device, a
#                         context and an allocation, NVML); compared with the helper's own time
#   nvidia-smi            for scale, where present
# and peak memory: gpudoctor's own (--no-cuda, and a replay of a full run, which is the same
# pipeline without the helper process), and the full run including the helper with libcuda.
# Usage: bench/run.sh path/to/gpudoctor [runs] [path/to/peak_rss]
set -u
bin=${1:?usage: bench/run.sh path/to/gpudoctor [runs] [peak_rss]}
runs=${2:-11}
peak=${3:-$(dirname "$bin")/peak_rss}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'; }
measure() {  # label, command...: prints label, median ms, median peak KiB
  local label=$1; shift
  local i
  for ((i = 0; i < runs; i++)); do "$peak" "$@"; done >"$tmp/m"
  printf '%-40s %10s %14s\n' "$label" "$(awk '{print $2}' "$tmp/m" | median)" "$(awk '{print $1}' "$tmp/m" | median)"
}

printf '%-40s %10s %14s\n' "command ($runs runs, medians)" "wall ms" "peak RSS KiB"
measure "gpudoctor --no-cuda (host part)" "$bin" --no-cuda
measure "gpudoctor (full, incl. helper+libcuda)" "$bin"
"$bin" --json >"$tmp/full.json" 2>/dev/null
measure "gpudoctor replay of a full run" "$bin" replay "$tmp/full.json"
if command -v nvidia-smi >/dev/null; then
  measure "nvidia-smi" nvidia-smi
fi
# The helper's own time (cuInit, and the whole helper process), from one full run's facts.
"$bin" -v 2>/dev/null | grep -E '^  cuda\.(init\.duration_ms|helper\.(duration_ms|work_ms|timeline)) = ' | sed 's/^  /helper: /'
# The CUDA fat binary scan (probes/shared/cuda_fatbin: SASS/PTX targets read from headers only) on one
# large CUDA library, FATBIN_LIB or the largest under /usr/local/cuda/lib64, warm cache; needs
# bench/fatbin_scan.cpp built beside the binary (cmake --build BUILD --target fatbin_scan).
scan=$(dirname "$bin")/fatbin_scan
lib=${FATBIN_LIB:-$(ls -SL /usr/local/cuda/lib64/lib*.so.* 2>/dev/null | head -n 1)}
if [ -x "$scan" ] && [ -n "$lib" ]; then
  lib=$(readlink -f "$lib")
  "$scan" "$lib" 1 >/dev/null
  "$scan" "$lib" "$runs" | sed 's/^/fatbin_scan: /'
fi
# Where the host part goes, phase by phase (bench/phase_times.cpp, built beside the binary).
phases=$(dirname "$bin")/phase_times
if [ -x "$phases" ]; then
  "$phases" "$runs" | sed 's/^/phases: /'
fi
