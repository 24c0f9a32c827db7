#!/usr/bin/env bash
# One device-machine call for session 9 (issue 25's layer folders, subcommand files and renderer
# rows; issue 26's first layer, limits): the incident scenarios and the whole-run benchmark
# (device_final.sh), the new layer's facts as the real host gives them, /dev/shm and memlock
# changed in a private namespace (the host is untouched), the node-scope line, and the binary
# before this session's work side by side with the new one.
#   OUT=... bash bench/device_session9.sh NEW OLD
set -u
NEW=${1:-./build/gpudoctor}
OLD=${2:-./old-gpudoctor}
OUT=${OUT:-/tmp/gd-out}
mkdir -p "$OUT"
bash bench/device_final.sh "$NEW"
"$NEW" --json >"$OUT/healthy.json" 2>/dev/null; echo "healthy --json rc=$?" >"$OUT/limits.txt"
{
  echo "=== the limits facts, live"; "$NEW" -v 2>&1 | grep -E '^  limits\.|Limits for collectives'
  echo "=== /dev/shm remounted 64 MiB (Docker's default) in a private mount namespace"
  unshare -m bash -c "mount -t tmpfs -o size=64m shm /dev/shm && $NEW -v 2>&1 | grep -E 'Limits for|^  limits\.shm|limits\.' ; $NEW >/dev/null 2>&1; echo rc=\$?"
  echo "=== RLIMIT_MEMLOCK 8 MiB (prlimit), no RDMA devices here"
  prlimit --memlock=8388608:8388608 "$NEW" -v 2>&1 | grep -E 'Limits for|limits\.memlock|limits\.rdma'
  echo "=== --scope node --format npd"; "$NEW" --scope node --format npd; echo "rc=$?"
  echo "=== --no-cuda"; "$NEW" --no-cuda | tail -3; echo "rc=$?"
} >>"$OUT/limits.txt" 2>&1
cat "$OUT/limits.txt"
[ -x "$OLD" ] && bash bench/device_old_vs_new.sh "$OLD" "$NEW" 21
