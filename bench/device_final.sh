#!/usr/bin/env bash
# One device-machine call: the three reports the foundation issue asks for, the incident
# scenarios as --json (future test hosts), and the whole-run benchmark.
set -u
B=${1:-./build/gpudoctor}
OUT=${OUT:-/tmp/gd-out}
bash bench/device_scenarios.sh "$B" >/dev/null 2>&1
mkdir -p /tmp/scen && mv "$OUT"/*.txt "$OUT"/*.json /tmp/scen/ 2>/dev/null
tar -czf "$OUT/scenarios.tar.gz" -C /tmp/scen .
bash bench/run.sh "$B" 11 "$(dirname "$B")/peak_rss" | tee "$OUT/bench.txt"
for n in healthy cvd99 stub-flag; do echo "=== $n"; cat /tmp/scen/$n.txt; done >"$OUT/reports.txt"
cat "$OUT/bench.txt"
