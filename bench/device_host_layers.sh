#!/usr/bin/env bash
# One device-machine call for the host layers: the healthy report, /dev/null bind-mounted over
# /dev/nvidia-uvm in a private mount namespace (the host is untouched), an ordinary user, and the
# benchmark. Reports and --json captures come back in $OUT/host-layers.tar.gz.
set -u
B=${1:-./build/gpudoctor}
OUT=${OUT:-/tmp/gd-out}
work=/tmp/host-layers
mkdir -p "$work"
"$B" >"$work/healthy.txt" 2>&1; echo "rc=$?" >>"$work/healthy.txt"
"$B" --json >"$work/healthy.json" 2>/dev/null
unshare -m bash -c "mount --bind /dev/null /dev/nvidia-uvm && { $B >$work/uvm-null.txt 2>&1; echo rc=\$? >>$work/uvm-null.txt; $B --json >$work/uvm-null.json 2>/dev/null; }"
setpriv --reuid=65534 --regid=65534 --clear-groups "$B" >"$work/nobody.txt" 2>&1; echo "rc=$?" >>"$work/nobody.txt"
bash bench/run.sh "$B" 11 "$(dirname "$B")/peak_rss" >"$work/bench.txt" 2>&1
tar -czf "$OUT/host-layers.tar.gz" -C "$work" .
cat "$work/healthy.txt" "$work/uvm-null.txt" "$work/bench.txt"
