#!/usr/bin/env bash
# Measures whole runs of gpudoctor (median of N): --no-cuda (the host part), a full run (host
# part + the CUDA helper), and nvidia-smi where present, plus peak memory of each.
# Usage: bench/run.sh path/to/gpudoctor [runs]   Prints a table; exits 0.
set -u
bin=${1:?usage: bench/run.sh path/to/gpudoctor [runs]}
runs=${2:-11}

median_ms() {  # runs "$@" $runs times, prints the median wall time in ms
  local times=() i start end
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.1f", $1 / 1000 }'
}

peak_kib() {  # peak resident memory of the command itself (ru_maxrss), KiB
  if command -v python3 >/dev/null; then
    python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
  elif [ -x /usr/bin/time ]; then
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
  else
    echo "?"
  fi
}

printf '%-34s %12s %14s\n' "command" "median ms" "peak RSS KiB"
printf '%-34s %12s %14s\n' "gpudoctor --no-cuda" "$(median_ms "$bin" --no-cuda)" "$(peak_kib "$bin" --no-cuda)"
printf '%-34s %12s %14s\n' "gpudoctor (full)" "$(median_ms "$bin")" "$(peak_kib "$bin")"
if command -v nvidia-smi >/dev/null; then
  printf '%-34s %12s %14s\n' "nvidia-smi" "$(median_ms nvidia-smi)" "$(peak_kib nvidia-smi)"
fi
# What the helper itself spent in cuInit and in the whole helper process, from one full run.
"$bin" --json --no-capture 2>/dev/null | python3 -c '
import json, sys
f = json.load(sys.stdin)["facts"]
v = lambda k: f.get(k, {}).get("value", "?")
print(f"helper: cuInit {v(\"cuda.init.duration_ms\")} ms, whole helper process {v(\"cuda.helper.duration_ms\")} ms")
' 2>/dev/null || true
