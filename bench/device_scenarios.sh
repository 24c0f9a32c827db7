#!/usr/bin/env bash
# Runs gpudoctor on the device machine (a real H200) in the scenarios from the incidents and
# keeps each --json report under $OUT: the captures become replayable test hosts.
set -u
B=${1:-./build/gpudoctor}
out=${OUT:-/tmp/gd-scenarios}
mkdir -p "$out"
run() {  # name, then the command; keeps text and JSON
  local name=$1; shift
  "$@" >"$out/$name.txt" 2>&1; echo "rc=$?" >>"$out/$name.txt"
  "$@" --json >"$out/$name.json" 2>/dev/null
}
run healthy "$B"
run cvd99 env CUDA_VISIBLE_DEVICES=99 "$B"
run cvd-empty env CUDA_VISIBLE_DEVICES= "$B"
run stub-flag "$B" --libcuda /usr/local/cuda/lib64/stubs/libcuda.so
mkdir -p /tmp/stubdir && ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /tmp/stubdir/libcuda.so.1
run stub-ldpath env LD_LIBRARY_PATH=/tmp/stubdir:${LD_LIBRARY_PATH:-} "$B"
# /dev/null over the uvm node in a private mount namespace (the host is untouched).
if command -v unshare >/dev/null; then
  unshare -m bash -c "mount --bind /dev/null /dev/nvidia-uvm && $B >$out/uvm-null.txt 2>&1; echo rc=\$? >>$out/uvm-null.txt; $B --json >$out/uvm-null.json 2>/dev/null"
fi
# An ordinary user: must finish and claim nothing false.
if command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$B" >"$out/nobody.txt" 2>&1; echo "rc=$?" >>"$out/nobody.txt"
fi
for f in "$out"/*.txt; do echo "=== $f"; head -12 "$f"; done
