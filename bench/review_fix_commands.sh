#!/usr/bin/env bash
# Issue 23, item 3: the read-only halves of the fix commands the review corrected, run on the real
# H200 so that they are known to work as printed. Nothing is changed on the machine: the chmod of
# devices.open-eacces is shown with -print instead of -exec, no module is unloaded, no service
# restarted. Results land in $OUT/review-fixes.txt.
#   bash bench/review_fix_commands.sh
set -u
OUT=${OUT:-/tmp/review-fixes}; mkdir -p "$OUT"
exec > "$OUT/review-fixes.txt" 2>&1
step() { echo; echo "== $*"; }

step "nvml.driver-library-mismatch fix 1: what ldconfig -p prints (sonames and links, no versions)"
ldconfig -p | grep -E 'libcuda.so.1|libnvidia-ml.so.1'
step "... and the link targets, which carry the version"
for f in $(ldconfig -p | awk '$1 ~ /^(libcuda|libnvidia-ml)[.]so[.]1$/ {print $NF}'); do readlink -f "$f"; done
step "... the module's version"
cat /proc/driver/nvidia/version
step "... the kernel log's API-mismatch lines (none expected on a healthy host)"
dmesg 2>&1 | grep -A2 'API mismatch' || echo "(none, or dmesg not readable: rc $?)"
step "nvml.driver-library-mismatch fix 2: who holds the GPU nodes (fuser -v), what holds the module (lsmod)"
command -v fuser || echo "fuser not installed"
fuser -v /dev/nvidia* 2>&1 || echo "(fuser rc $?)"
grep -E '^nvidia' /proc/modules | awk '{print $1, "refcount", $3, "used by", $4}'

step "devices.open-eacces: what the old glob matched, and what the new find selects"
ls -ld /dev/nvidia* 2>&1
echo "-- find /dev -maxdepth 1 -type c -name 'nvidia*' (the new command prints instead of chmod):"
find /dev -maxdepth 1 -type c -name 'nvidia*' -print
echo "-- folders the old glob would have chmodded 0666:"
find /dev -maxdepth 1 -type d -name 'nvidia*' -print

step "nvml.recovery-action-required DRAIN_P2P: does nvidia-persistenced run with --uvm-persistence-mode?"
ps -o args= -C nvidia-persistenced 2>&1 || echo "(nvidia-persistenced not running)"
nvidia-smi -q 2>/dev/null | grep -i -E 'Recovery Action|Persistence Mode' | sort | uniq -c

step "nvml.fabric-not-registered: the fabric state the fix checks for"
nvidia-smi -q 2>/dev/null | grep -i -A3 Fabric | head -20

step "toolkit.newer-than-driver: the facts the message now names"
if [ -x build/gpudoctor ]; then
  build/gpudoctor -v --color never 2>&1 | grep -E 'ml[.]toolkit_|toolkit[.]build[.]version|ml[.]driver_cuda' | head -20
fi
echo; echo "done"
