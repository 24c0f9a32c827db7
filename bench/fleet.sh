#!/usr/bin/env bash
# `gpudoctor fleet` over 1,000 and 10,000 reports (issue 16: 1,000 reports of about 60 KB in
# under 2 s on the 2-core development machine; memory bounded whatever the count): wall time and
# peak RSS, medians of N runs, warm cache, reading
#   - a folder of one report per file (as `srun --output=sweep/%N.json` leaves them), and
#   - the same reports as one JSON Lines stream on standard input.
# The reports are real: `replay --json --no-capture` of captured hosts of tests/hosts/ (made into
# the build tree's generated/tests/hosts/ first, as ctest's fixture test.inputs does: some are
# stored as deltas, tests/hosts/README.md), copied under the node names gpu1..gpuN (a healthy
# majority, some with each of three root causes).
# Usage: bench/fleet.sh path/to/gpudoctor [runs] [path/to/peak_rss]
#   (peak_rss is bench/peak_rss.c: cmake --build build --target peak_rss)
set -u
bin=${1:?usage: bench/fleet.sh path/to/gpudoctor [runs] [peak_rss]}
runs=${2:-5}
peak=${3:-$(dirname "$bin")/peak_rss}
build=$(dirname "$bin")
{ cmake --build "$build" --target compose_capture >/dev/null &&
  bash "$(dirname "$0")/../tests/hosts/make_test_inputs.sh" "$build/tests/compose_capture" "$build/generated" >/dev/null; } \
  || { echo "bench/fleet.sh: cannot make the captured hosts in $build/generated" >&2; exit 1; }
hosts=$build/generated/tests/hosts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'; }
measure() {  # label, stdin file or "", command...: prints label, median wall ms, median peak KiB
  local label=$1 input=$2 i
  shift 2
  for ((i = 0; i < runs; i++)); do
    if [ -n "$input" ]; then "$peak" "$@" <"$input"; else "$peak" "$@" </dev/null; fi
  done >"$tmp/m"
  printf '%-44s %10s %14s\n' "$label" "$(awk '{print $2}' "$tmp/m" | median)" "$(awk '{print $1}' "$tmp/m" | median)"
}

mkdir -p "$tmp/base"
for c in h200-live-ml h200-container-580.159.04 lxc-stale-uvm-major upgrade-without-reboot blackwell-firmware-missing; do
  "$bin" replay "$hosts/$c.capture.json" --json --no-capture >"$tmp/base/$c.json" 2>/dev/null
done
# N reports: 80 % healthy (the ML host's report, the largest), the rest spread over the others.
make_fleet() {  # N: makes $tmp/fleetN/ and $tmp/fleetN.jsonl
  python3 - "$tmp/base" "$tmp/fleet$1" "$tmp/fleet$1.jsonl" "$1" <<'EOF'
import json, os, sys
base, folder, stream, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
kinds = ["h200-live-ml"] * 8 + ["lxc-stale-uvm-major", "upgrade-without-reboot"]
reports = {k: json.load(open(os.path.join(base, k + ".json"))) for k in set(kinds) | {"blackwell-firmware-missing"}}
os.makedirs(folder)
with open(stream, "w") as out:
    for i in range(1, n + 1):
        kind = "blackwell-firmware-missing" if i % 97 == 0 else kinds[i % len(kinds)]
        r = reports[kind]
        r["run"]["host"] = "gpu%d" % i
        with open(os.path.join(folder, "gpu%d.json" % i), "w") as f:
            json.dump(r, f, indent=2)
        out.write(json.dumps(r) + "\n")
EOF
}

echo "gpudoctor fleet: $(nproc) cores, $(uname -r), $runs runs per line, medians"
printf '%-44s %10s %14s\n' "command" "wall ms" "peak RSS KiB"
for n in 1000 10000; do
  make_fleet "$n"
  bytes=$(du -sb "$tmp/fleet$n" | cut -f1)
  cat "$tmp/fleet$n"/*.json >/dev/null 2>&1 || find "$tmp/fleet$n" -name '*.json' -exec cat {} + >/dev/null  # warm cache
  measure "fleet FOLDER ($n files, $((bytes / n / 1024)) KiB each)" "" "$bin" fleet "$tmp/fleet$n"
  measure "fleet FOLDER --json ($n files)" "" "$bin" fleet "$tmp/fleet$n" --json
  measure "fleet - <JSON Lines ($n reports, $(($(stat -c %s "$tmp/fleet$n.jsonl") >> 20)) MiB)" "$tmp/fleet$n.jsonl" \
    "$bin" fleet -
  rm -rf "$tmp/fleet$n" "$tmp/fleet$n.jsonl"
done
