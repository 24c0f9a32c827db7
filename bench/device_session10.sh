#!/usr/bin/env bash
# One device-machine call for session 10 (issue 26: the peer-to-peer proof, IOMMU/ACS, RDMA, NCCL
# and NVLink layers): the healthy report and the new layers' lines and facts as the real host gives
# them (root and an ordinary user), the metrics, the incident scenarios, and the whole run against
# the floor program (bench/cuda_floor.c) and against the binary from before this session's work,
# interleaved, with the run split into its parts (gpudoctor outside the helper, the helper's start,
# cuInit, the GPUs, the wait for NVML). Everything lands in $OUT/results.tgz.
#   bash bench/device_session10.sh   (from a folder build-device/ holding gpudoctor, old-gpudoctor,
#                                     cuda-floor and peak_rss)
set -u
D=${D:-build-device}; R=$OUT/r; mkdir -p "$R" /tmp/gd-bin
cp "$D"/* /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor; OLD=/tmp/gd-bin/old-gpudoctor
NEW_LAYERS='Peer-to-peer|IOMMU|RDMA|NCCL|NVLink'
NEW_FACTS='^  (p2p|iommu|acs|rdma|nccl|nvlink)\.'
{
  nvidia-smi -L; nvidia-smi topo -m 2>&1 | head -20
  nvidia-smi nvlink -s 2>&1 | head -20
  ls /sys/class/infiniband 2>&1; ls /sys/class/iommu 2>&1; cat /proc/cmdline
} >"$R/host.txt" 2>&1
$GD --color never >"$R/healthy.txt" 2>&1; echo "exit $?" >>"$R/healthy.txt"
$GD --json >"$R/healthy.json" 2>/dev/null
$GD -v --color never 2>&1 | grep -E "$NEW_FACTS" >"$R/new-facts.txt"
$GD --format prometheus >"$R/metrics.prom" 2>&1
setpriv --reuid=65534 --regid=65534 --clear-groups "$GD" -v --color never >"$R/unprivileged.txt" 2>&1
echo "exit $?" >>"$R/unprivileged.txt"
{
  echo "=== the new layers' overview lines, root"; grep -E "$NEW_LAYERS" "$R/healthy.txt"
  echo "=== the new layers' overview lines, uid 65534"; grep -E "$NEW_LAYERS" "$R/unprivileged.txt"
  echo "=== the new layers' facts, uid 65534"; grep -E "$NEW_FACTS" "$R/unprivileged.txt"
  echo "=== p2p/nvlink metrics"; grep -E 'p2p|nvlink' "$R/metrics.prom"
  echo "=== NCCL_SOCKET_IFNAME naming this container's interface, then one it lacks (nccl.socket-ifname-not-found)"
  ls /sys/class/net
  NCCL_SOCKET_IFNAME=$(ls /sys/class/net | grep -v '^lo$' | head -1) "$GD" --color never 2>&1 | grep -E 'NCCL'
  NCCL_SOCKET_IFNAME==ib9 "$GD" --color never 2>&1 | grep -E 'NCCL|nccl\.' ; echo "exit ${PIPESTATUS[0]}"
  echo "=== --scope node --format npd"; "$GD" --scope node --format npd; echo "exit $?"
} >"$R/new-layers.txt"
OUT=/tmp/scen bash bench/device_scenarios.sh "$GD" >/dev/null 2>&1
tar -czf "$R/scenarios.tar.gz" -C /tmp/scen .
for n in healthy cvd99 stub-flag uvm-null nobody; do echo "=== $n"; cat /tmp/scen/$n.txt; done >"$R/scenarios.txt" 2>&1
{ echo "peak RSS KiB, wall ms: full run; --no-cuda"; /tmp/gd-bin/peak_rss $GD --json --no-capture
  /tmp/gd-bin/peak_rss $GD --no-cuda --json --no-capture; } >"$R/peak-rss.txt" 2>&1
# What ran before a process changes its cuInit by up to 90 ms: gpudoctor and the floor swap places
# every other round; old and new follow each other as well.
python3 bench/interleaved.py --settle-ms 300 --swap gpudoctor,floor ${ROUNDS:-21} \
  "gpudoctor=$GD --json --no-capture" "floor=/tmp/gd-bin/cuda-floor" "old=$OLD --json --no-capture" \
  "no-cuda=$GD --no-cuda --json --no-capture" "old-no-cuda=$OLD --no-cuda --json --no-capture" \
  >"$R/bench.txt" 2>"$R/bench-medians.json"
cat "$R/new-layers.txt" "$R/bench.txt"
tar -czf "$OUT/results.tgz" -C "$R" .
